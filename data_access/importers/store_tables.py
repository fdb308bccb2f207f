"""What both import paths ask of a store table: its keys, and the one INSERT that writes a table
file's rows into it (the checked path in checked_insert.py, the explaining path in lfvqa.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from data_access.formats.table_files import TableFile
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


# The store derives `mcq_predictions.correct` from the prediction's MCQ while inserting, so the
# insert joins each prediction to its MCQ anyway; that join also refuses an unknown `mcq_id`,
# and the checked insert need not look for one again (importers/checked_insert.py).
JOINED_REFERENCES = {"mcq_predictions": ("mcq_id", "mcq_questions", "mcq_id")}


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
    if spec.table in JOINED_REFERENCES:
        # `correct` is derived while inserting: an UPDATE afterwards rewrites millions of rows.
        column, ref_file, ref_column = JOINED_REFERENCES[spec.table]  # the file names its table
        columns.append("correct")
        values.append("s.predicted_option = q.option")
        joined += (
            f' LEFT JOIN {ref_file} q ON q."{ref_column}" = s."{column}"'
            f' WHERE CASE WHEN s."{column}" IS NOT NULL AND q."{ref_column}" IS NULL'
            f" THEN error('unknown {column}') ELSE TRUE END"
        )
    try:
        written = cursor.execute(
            f"INSERT INTO {spec.table} ({', '.join(columns)})"
            f" SELECT {', '.join(values)} FROM {joined}",
            params + select_params,
        ).fetchone()[0]
    except duckdb.ConstraintException as exc:
        raise KeyConflict(spec, path, str(exc).splitlines()[0]) from None
    return int(written)
