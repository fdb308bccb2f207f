"""What both import paths ask of a store table: its keys, and the one INSERT that writes a table
file's rows into it (the checked path in checked_insert.py, the explaining path in lfvqa.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from data_access.formats.lfvqa import TableFile
from data_access.importers.catalog import store_catalog
from data_access.importers.fields import field_specs


def _primary_key(cursor: duckdb.DuckDBPyConnection, table: str) -> tuple[str, ...]:
    return store_catalog(cursor).primary_keys.get(table, ())


def store_key(cursor: duckdb.DuckDBPyConnection, table: str) -> tuple[str, ...]:
    """The store table's primary-key columns, without `run_id` (each import is one run)."""
    return tuple(col for col in _primary_key(cursor, table) if col != "run_id")


def key_is_per_run(cursor: duckdb.DuckDBPyConnection, table: str) -> bool:
    """True when the store keys `table` by run too, so a new import appends a new version."""
    return "run_id" in _primary_key(cursor, table)


def primary_key_guards(cursor: duckdb.DuckDBPyConnection, spec: TableFile) -> bool:
    """True when the store's primary key already rejects every duplicate the file key would.

    Then the insert itself is the duplicate check (a GROUP BY over millions of keys saved);
    a violation rolls the import back and the explaining path names the records.
    """
    key = store_key(cursor, spec.table)
    return bool(key) and set(key) <= set(spec.key)


class KeyConflict(Exception):
    """The store's primary key rejected a row of `path` (diagnosed after the rollback)."""

    def __init__(self, spec: TableFile, path: Path, detail: str):
        super().__init__(detail)
        self.spec, self.path, self.detail = spec, path, detail


def insert_table_rows(
    cursor: duckdb.DuckDBPyConnection,
    spec: TableFile,
    path: Path,
    source: tuple[str, list],
    run: tuple[str, str],
) -> int:
    """Insert the rows of `source` (SQL with a column per model field, and its parameters) into
    `spec.table` under `run` = (run id, dataset id); return the rows written.

    Raises:
        KeyConflict: the store's primary key refused a row of `path`.
    """
    run_id, dataset_id = run
    names = [field.name for field in field_specs(spec.model)]
    columns = [f'"{name}"' for name in names] + ["run_id"]
    values = [f's."{name}"' for name in names] + ["?"]
    params: list = [run_id]
    if "dataset_id" in store_catalog(cursor).column_types.get(spec.table, {}):
        columns.append("dataset_id")
        values.append("?")
        params.append(dataset_id)
    select, select_params = source
    joined = f"({select}) s"
    if spec.table == "mcq_predictions":
        # `correct` is derived while inserting: an UPDATE afterwards rewrites millions of rows.
        columns.append("correct")
        values.append("s.predicted_option = q.option")
        joined += " LEFT JOIN mcq_questions q ON q.mcq_id = s.mcq_id"
    try:
        written = cursor.execute(
            f"INSERT INTO {spec.table} ({', '.join(columns)})"
            f" SELECT {', '.join(values)} FROM {joined}",
            params + select_params,
        ).fetchone()[0]
    except duckdb.ConstraintException as exc:
        raise KeyConflict(spec, path, str(exc).splitlines()[0]) from None
    return int(written)
