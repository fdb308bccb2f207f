"""The checked insert: a table file written straight into its store table, every check on the way
(validation plus insert within 2x DuckDB's raw load).

The explaining path (lfvqa.py) stages a file, numbers its records, checks the stage and then
copies it into the store: every file is read or written three or four times so that a fault can
be named by its line. Faults are rare, so the import first takes this path, which reads each
file once:

- row checks (the model's field rules, range, JSON types) are a guard in the insert's own scan:
  a faulty row raises DuckDB's `error()` and aborts the statement;
- key and reference checks run after the insert, on the run's rows in the store table (DuckDB's
  own columnar format, read on all cores) and only ask whether a fault exists.

Anything refused raises `Refused`; the caller rolls the whole import back and replays it on the
explaining path, which names file, record and field. Both paths run the same checks
(`checks.row_faults`, the keys and references of `TableFile`), so the replay finds the fault;
tests/data_access/importers/test_import_checked.py runs every bad-input case through both.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from data_access.formats.table_files import TABLE_FILES, TableFile
from data_access.importers import checks
from data_access.importers.errors import EMPTY_FILE, fail
from data_access.importers.fields import field_specs
from data_access.importers.staging import StagedFile
from data_access.importers.staging_jsonl import jsonl_select
from data_access.importers.staging_parquet import parquet_select
from data_access.importers.store_tables import (
    JOINED_REFERENCES,
    KeyConflict,
    insert_table_rows,
    key_is_per_run,
    primary_key_guards,
)

_FILES = {table.name: table for table in TABLE_FILES}


class Refused(Exception):
    """The checked insert of a table file found a fault (the explaining path names it)."""

    def __init__(self, file: str, reason: str):
        super().__init__(f"{file}: {reason}")
        self.file, self.reason = file, reason


def _row_guard(
    cursor: duckdb.DuckDBPyConnection, spec: TableFile, type_fault: bool
) -> tuple[str, list]:
    """A WHERE condition that is true for a clean row and raises for a faulty one."""
    faults = checks.row_faults(cursor, spec.table, spec.model)
    conditions = [f"({fault.condition})" for fault in faults]
    if type_fault:
        conditions.append("_type_fault")
    if not conditions:
        return "TRUE", []
    # NULL (e.g. a bound on a missing value) is no fault, as in checks.first_faults
    return (
        f"CASE WHEN {' OR '.join(conditions)} THEN error('a record fails a check') ELSE TRUE END",
        [param for fault in faults for param in fault.params],
    )


def _exists(cursor: duckdb.DuckDBPyConnection, sql: str, run_id: str) -> bool:
    """Whether `sql` (reading the run's rows through `$run`) returns a row."""
    return bool(cursor.execute(f"SELECT EXISTS ({sql})", {"run": run_id}).fetchone()[0])


def _duplicate_key(
    cursor: duckdb.DuckDBPyConnection, table: str, key: tuple[str, ...], run_id: str
) -> bool:
    """Whether two of the run's rows share `key` (a repeated hash is confirmed exactly)."""
    cols = ", ".join(f'"{name}"' for name in key)
    rows = f"{table} WHERE run_id = $run"
    # counting distinct hashes is a fifth cheaper than grouping by them (no group rows kept)
    repeats = cursor.execute(
        f"SELECT count(DISTINCT hash({cols})) < count(*) FROM {rows}", {"run": run_id}
    ).fetchone()[0]
    return repeats and _exists(
        cursor, f"SELECT 1 FROM {rows} GROUP BY {cols} HAVING count(*) > 1", run_id
    )


def _key_of_other_run(
    cursor: duckdb.DuckDBPyConnection, table: str, key: tuple[str, ...], run_id: str
) -> bool:
    """Whether a row of the run has the key of a row another run wrote."""
    if not _exists(cursor, f"SELECT 1 FROM {table} WHERE run_id <> $run", run_id):
        return False
    on = " AND ".join(f's."{name}" = t."{name}"' for name in key)
    return _exists(
        cursor,
        f"SELECT 1 FROM {table} s JOIN {table} t ON {on}"
        " WHERE s.run_id = $run AND t.run_id <> $run",
        run_id,
    )


def _unknown_reference(
    cursor: duckdb.DuckDBPyConnection, table: str, reference: tuple[str, str, str], run_id: str
) -> bool:
    column, ref_file, ref_column = reference
    return _exists(
        cursor,
        f'SELECT "{column}" FROM {table} WHERE run_id = $run AND "{column}" IS NOT NULL'
        f' EXCEPT SELECT "{ref_column}" FROM {_FILES[ref_file].table}',
        run_id,
    )


def _bad_list_items(
    cursor: duckdb.DuckDBPyConnection,
    table: str,
    reference: tuple[str, str, str, str, str],
    run_id: str,
) -> bool:
    """Whether a list names an item twice or an item its owner lacks in the referenced table."""
    column, owner, ref_file, ref_owner, ref_column = reference
    items = f'len(list_filter("{column}", lambda x: x IS NOT NULL))'
    if _exists(
        cursor,
        f'SELECT 1 FROM {table} WHERE run_id = $run AND len(list_distinct("{column}")) < {items}',
        run_id,
    ):
        return True
    return _exists(
        cursor,
        f'SELECT 1 FROM (SELECT "{owner}", unnest("{column}") AS item FROM {table}'
        f" WHERE run_id = $run) s ANTI JOIN {_FILES[ref_file].table} t"
        f' ON t."{ref_owner}" = s."{owner}" AND t."{ref_column}" = s.item',
        run_id,
    )


def _set_fault(cursor: duckdb.DuckDBPyConnection, spec: TableFile, run_id: str) -> str | None:
    """What the run's rows of `spec.table` break among the file's keys and references."""
    table, per_run = spec.table, key_is_per_run(cursor, spec.table)
    keys = [spec.key] if spec.key and not primary_key_guards(cursor, spec) else []
    for key in keys + list(spec.unique):
        if _duplicate_key(cursor, table, key, run_id):
            return f"a key repeats: {'+'.join(key)}"
        if not per_run and _key_of_other_run(cursor, table, key, run_id):
            return f"a key is in the store already: {'+'.join(key)}"
    for reference in spec.references:
        if reference == JOINED_REFERENCES.get(table):
            continue  # the insert's join refused an unknown one
        if _unknown_reference(cursor, table, reference, run_id):
            return f"an unknown {reference[0]}"
    for reference in spec.list_references:
        if _bad_list_items(cursor, table, reference, run_id):
            return f"a bad item of {reference[0]}"
    return None


def checked_table_file(
    cursor: duckdb.DuckDBPyConnection, spec: TableFile, path: Path, run_id: str, dataset_id: str
) -> int:
    """Insert one table file under the run, checking on the way; return the rows written.

    Raises:
        ImportFailure: the file's own shape or schema is wrong (named as the explaining path
            names it), or it has no records.
        Refused: a record fails a check; the explaining path names it.
    """
    fmt = path.suffix.lstrip(".")
    staged = StagedFile(spec.name, path, fmt, f"_source_{spec.name}")
    specs = field_specs(spec.model)
    if fmt == "parquet":
        select, params = parquet_select(cursor, staged, specs, numbered=False)
    else:
        select, params = jsonl_select(cursor, staged, specs, joined=spec.table in JOINED_REFERENCES)
    guard, guard_params = _row_guard(cursor, spec, type_fault=fmt == "jsonl")
    source = (f"SELECT * FROM ({select}) WHERE {guard}", params + guard_params)
    try:
        written = insert_table_rows(cursor, spec, path, source, (run_id, dataset_id))
    except (duckdb.Error, KeyConflict) as exc:
        raise Refused(path.name, str(exc).splitlines()[0]) from None
    if written == 0:
        raise fail(path.name, "(file)", "-", EMPTY_FILE)
    reason = _set_fault(cursor, spec, run_id)
    if reason is not None:
        raise Refused(path.name, reason)
    return written
