"""The store's column types and primary keys, read once per import instead of per table file.

An import of the interchange format asks the catalog about every table it writes (its columns,
its primary key, the width of its integer columns); each such `information_schema` /
`duckdb_constraints()` query costs 5-10 ms, about sixty of them per import, a fixed cost that
dominated small batches. Inside `one_catalog_read()` the first question reads
the whole catalog in two queries and later ones are answered from it; outside, every question
reads the catalog afresh (the schema cannot change under an import: migrations run before any
unit of work, data_access.store.connection).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class StoreCatalog:
    """Column types and primary-key columns of the store's tables (schema `main`)."""

    column_types: dict[str, dict[str, str]]
    primary_keys: dict[str, tuple[str, ...]]


_active: ContextVar[dict | None] = ContextVar("import_catalog", default=None)


def _read(cursor: duckdb.DuckDBPyConnection) -> StoreCatalog:
    column_types: dict[str, dict[str, str]] = {}
    for table, column, data_type in cursor.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns()"
        " WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal"
    ).fetchall():
        column_types.setdefault(table, {})[column] = data_type
    primary_keys = {
        table: tuple(columns)
        for table, columns in cursor.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints()"
            " WHERE database_name = current_database() AND schema_name = 'main'"
            " AND constraint_type = 'PRIMARY KEY'"
        ).fetchall()
    }
    return StoreCatalog(column_types, primary_keys)


@contextmanager
def one_catalog_read() -> Iterator[None]:
    """Answer catalog questions from a single read for the duration of the block."""
    token = _active.set({})
    try:
        yield
    finally:
        _active.reset(token)


def store_catalog(cursor: duckdb.DuckDBPyConnection) -> StoreCatalog:
    """The catalog: the block's single read inside `one_catalog_read()`, else a fresh one."""
    held = _active.get()
    if held is None:
        return _read(cursor)
    if "catalog" not in held:
        held["catalog"] = _read(cursor)
    return held["catalog"]
