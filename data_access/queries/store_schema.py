"""How a store's schema stands against this code's migrations, read without writing."""

from __future__ import annotations

from data_access.store import Store
from data_access.store.migrations import schema_status


def schema_gap(store: Store) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(migrations this code has that the store lacks, migrations the store has that this code
    does not know). A read-only store is read as it is, so the first is what its pages miss."""
    with store.session() as cursor:
        status = schema_status(cursor)
    return status.pending, status.unknown
