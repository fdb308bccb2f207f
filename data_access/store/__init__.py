"""The store itself: the DuckDB file, its schema and its health.

- `connection`: `Store`, one file shared by the app, the CLI and jobs (sessions, transactions,
  the lock wait, read-only fall-back).
- `health`: is a file a usable store (refuse what is not one, a damaged one).
- `migrations/`: the schema, one numbered module per change; a newer store is refused.
- `held`: `HeldFile`, the one policy for holding the file open across many transactions.
- `append`: `append_rows` / `append_table`, the one bulk insert of rows built in Python.
- `interrupts`: Ctrl-C during a write, and what it did (rolled back or kept).

The names below are the store's public face.
"""

from data_access.store.append import append_rows, append_table
from data_access.store.connection import (
    MAX_LOCK_TIMEOUT_S,
    Store,
    StoreBusy,
    StoreReadOnly,
    default_lock_timeout,
    default_store_path,
    forget_schema_cache,
    is_conflict,
    live_cursors,
    on_migrations_applied,
)
from data_access.store.health import StoreProblem
from data_access.store.held import HOLD_S, HeldFile

__all__ = [
    "append_rows",
    "append_table",
    "HOLD_S",
    "MAX_LOCK_TIMEOUT_S",
    "HeldFile",
    "Store",
    "StoreBusy",
    "StoreProblem",
    "StoreReadOnly",
    "default_lock_timeout",
    "default_store_path",
    "forget_schema_cache",
    "is_conflict",
    "live_cursors",
    "on_migrations_applied",
]
