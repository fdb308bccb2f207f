"""Stage one table file into a typed temp table, streaming it through DuckDB's own readers.

JSONL goes through two DuckDB scans: `read_ndjson_objects` (every record must be a JSON object
whose keys are model fields) and `read_json` with every model field read as raw `JSON`, so the
value's own JSON type can be checked (DuckDB would silently turn `5` into `'5'` or round `1.5`
into an integer column); that second scan casts to the typed stage and checks the JSON types in
the same pass, and only a file with a wrongly typed value is read again to name it. Parquet
is typed already: its schema is checked once, then cast. Python never holds the file: it only
reads lines on the error path, to turn DuckDB's record ordinal into a line number and to
explain a malformed line.

Neither JSONL scan numbers its records with `WITH ORDINALITY` on the way in: DuckDB reads such
a scan on one thread, and the two scans were most of a JSONL import's wall time (issue 15,
"Import"). The shape check asks only whether a fault exists (a parallel scan) and numbers
records on the error path; the typed stage is a temp table filled in file order
(`preserve_insertion_order`, DuckDB's default, checked) whose rowids, counted from its first
row, are the ordinals.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
from rapidfuzz import process

from data_access.importers.checks import Fault, first_faults
from data_access.importers.errors import ImportFailure, Problem, fail
from data_access.importers.fields import (
    INT64_RANGE,
    JSON_TYPE_WORDS,
    LIST_ITEMS,
    FieldSpec,
    type_words,
)
from data_access.importers.unreadable import explain_unreadable
from data_access.importers.values import TRAILING_COMMA_SQL

ROW = "_row"  # the 1-based record ordinal column of every stage table


@dataclass
class StagedFile:
    """A table file staged as the temp table `stage`, one typed column per model field."""

    name: str
    path: Path
    fmt: str  # jsonl | parquet
    stage: str
    n_rows: int = 0
    is_view: bool = False
    backing: str | None = None  # the temp table behind a JSONL stage view (its rows)

    @property
    def file_label(self) -> str:
        return self.path.name

    def record_labels(self, ordinals: list[int]) -> dict[int, str]:
        """`line N` for JSONL (blank lines counted, as an editor shows them), `row N` for
        Parquet."""
        if self.fmt == "parquet":
            return {n: f"row {n}" for n in ordinals}
        return {n: f"line {line}" for n, line in record_lines(self.path, ordinals).items()}

    def problems(self, faults: list[tuple[int, str, str]]) -> list[Problem]:
        """Problems for (ordinal, field, message) faults, labelled with their records."""
        labels = self.record_labels([ordinal for ordinal, _, _ in faults])
        return [Problem(self.file_label, labels[o], field, message) for o, field, message in faults]


def record_lines(path: Path, ordinals: list[int]) -> dict[int, int]:
    """Map record ordinals (DuckDB skips blank lines) to 1-based file line numbers."""
    wanted = set(ordinals)
    found: dict[int, int] = {}
    ordinal = 0
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            ordinal += 1
            if ordinal in wanted:
                found[ordinal] = line_no
                if len(found) == len(wanted):
                    break
    return found


# -- JSONL ---------------------------------------------------------------------------------
def _closest(name: str, choices: list[str]) -> str:
    match = process.extractOne(name, choices, score_cutoff=70)
    return f" (did you mean '{match[0]}'?)" if match else ""


def _check_record_shapes(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Every record is an object with known keys; models forbid extra fields (lfvqa.Record)."""
    names = [spec.name for spec in specs]
    shape = (
        "json_type(json) AS t,"
        " list_filter(json_keys(json), lambda k: NOT list_contains(?::VARCHAR[], k)) AS extra,"
        f" {TRAILING_COMMA_SQL} AS trailing_comma"
    )
    faulty = "t <> 'OBJECT' OR len(extra) > 0 OR trailing_comma"
    try:
        # whether any record is faulty, on all cores; numbering the records is for the rare file
        # that has one (WITH ORDINALITY makes DuckDB read the file on one thread)
        if not cursor.execute(
            f"SELECT 1 FROM (SELECT {shape} FROM read_ndjson_objects(?)) WHERE {faulty} LIMIT 1",
            [names, str(staged.path)],
        ).fetchall():
            return
        rows = cursor.execute(
            f"SELECT ordinality, t, extra, trailing_comma FROM (SELECT ordinality, {shape}"
            f" FROM read_ndjson_objects(?) WITH ORDINALITY) WHERE {faulty}"
            " ORDER BY ordinality LIMIT 10",
            [names, str(staged.path)],
        ).fetchall()
    except duckdb.Error as exc:
        raise explain_unreadable(staged.path, exc) from None
    faults = []
    for ordinal, json_type, extra, trailing_comma in rows:
        if trailing_comma:
            faults.append((ordinal, "-", "invalid JSON: a trailing comma before } or ]"))
        elif json_type != "OBJECT":
            faults.append(
                (
                    ordinal,
                    "-",
                    f"record is {JSON_TYPE_WORDS.get(json_type, json_type)}, not a JSON object",
                )
            )
        else:
            faults.append(
                (
                    ordinal,
                    extra[0],
                    f"unknown field{_closest(extra[0], names)};"
                    f" {staged.name} records have: {', '.join(names)}",
                )
            )
    if faults:
        raise ImportFailure(staged.problems(faults))


def _json_type_fault(spec: FieldSpec) -> Fault:
    """The value has its field's JSON type (worded for the error messages)."""
    column = f'"{spec.name}"'
    return Fault(
        spec.name,
        f"{column} IS NOT NULL AND NOT list_contains(?::VARCHAR[], json_type({column}))",
        [list(spec.json_types)],
        f"must be {type_words(spec)}",
        show_value=True,
    )


def _item_and_range_faults(spec: FieldSpec) -> list[Fault]:
    """A list's items have the item type; an integer fits 64 bits."""
    column = f'"{spec.name}"'
    faults = []
    if spec.is_list:
        faults.append(
            Fault(
                spec.name,
                f"json_type({column}) = 'ARRAY' AND NOT list_has_all(?::VARCHAR[],"
                f" json_type({column}, '$[*]'))",
                [list(LIST_ITEMS[spec.kind])],
                f"must be {type_words(spec)}",
                show_value=True,
            )
        )
    if spec.kind in ("int", "list_int"):
        faults.append(
            Fault(
                spec.name,
                f"{column} IS NOT NULL AND TRY_CAST({column} AS {spec.sql_type}) IS NULL",
                [],
                f"integer out of range (must fit 64 bits: {INT64_RANGE})",
                show_value=True,
            )
        )
    return faults


def _type_faults(specs: tuple[FieldSpec, ...]) -> list[Fault]:
    """Checks on the raw JSON values: each value has its field's JSON type."""
    return [f for spec in specs for f in (_json_type_fault(spec), *_item_and_range_faults(spec))]


def _extract(spec: FieldSpec, column: str, cast: str = "CAST") -> tuple[str, list]:
    """SQL turning a raw JSON column into the field's typed value, defaulted like the model."""
    expr = f"({column} ->> '$')" if spec.kind == "str" else f"{cast}({column} AS {spec.sql_type})"
    if spec.default is None:
        return expr, []
    return f"coalesce({expr}, ?::{spec.sql_type})", [spec.default]


# every field read as raw JSON, so its value's own JSON type can be checked
_READ_JSON_RECORDS = "read_json(?, format='newline_delimited', columns=?)"
_READ_JSON = f"{_READ_JSON_RECORDS} WITH ORDINALITY"  # numbered: read on one thread


# The first character of a value's JSON text, as DuckDB keeps it in a JSON column (minified:
# `{"a" :  "x"}` gives `"x"`), names its JSON type for these kinds; a test is cheaper than
# json_type(), which parses the value again. Numbers keep json_type(): BIGINT vs DOUBLE.
_FIRST_CHARS = {"str": ('"',), "bool": ("t", "f"), "list_str": ("[",), "list_int": ("[",)}


def _wrong_json_type(spec: FieldSpec, column: str) -> tuple[str, list]:
    """SQL true when the non-null raw JSON value in `column` has a JSON type the field refuses
    (the fast path's test; `_type_faults` words the same test for the error messages)."""
    if spec.kind in _FIRST_CHARS:
        first = f"left({column}::VARCHAR, 1)"
        return f"NOT list_contains(?::VARCHAR[], {first})", [list(_FIRST_CHARS[spec.kind])]
    return f"NOT list_contains(?::VARCHAR[], json_type({column}))", [list(spec.json_types)]


def _fast_type_fault(specs: tuple[FieldSpec, ...]) -> tuple[str, list]:
    """One SQL boolean: some value of the record fails a check of `_type_faults`."""
    tests, params = [], []
    for spec in specs:
        column = f'"{spec.name}"'
        test, test_params = _wrong_json_type(spec, column)
        tests.append(f"({column} IS NOT NULL AND {test})")
        params += test_params
        for fault in _item_and_range_faults(spec):
            tests.append(f"({fault.condition})")
            params += fault.params
    return f"coalesce({' OR '.join(tests)}, false)", params


def _insertion_order_kept(cursor: duckdb.DuckDBPyConnection) -> bool:
    return bool(cursor.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0])


def _stage_typed_in_one_pass(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> bool:
    """The typed stage straight from DuckDB's reader, with every type check evaluated in the same
    pass; False (and no stage) when a value has the wrong JSON type.

    Materialising the raw JSON values first, scanning them for type faults and then casting
    them cost three passes over the file's biggest columns (about 0.25 CPU s more per million
    records, issue 15 "Import"). `TRY_CAST` keeps a wrong value from aborting the transaction;
    such a row is flagged, and the caller then takes the raw path, whose messages show the
    offending JSON value. The rows land in a temp table in file order, read on all cores; the
    stage is a view adding each record's ordinal (from its rowid; module docstring).
    """
    ordered = _insertion_order_kept(cursor)
    rows = staged.stage + "_rows"
    selects, params = ([] if ordered else [f"ordinality AS {ROW}"]), []
    for spec in specs:
        expr, expr_params = _extract(spec, f'"{spec.name}"', cast="TRY_CAST")
        selects.append(f'{expr} AS "{spec.name}"')
        params += expr_params
    fault, fault_params = _fast_type_fault(specs)
    selects.append(f"{fault} AS _type_fault")
    params += fault_params
    source = _READ_JSON_RECORDS if ordered else _READ_JSON
    try:
        cursor.execute(
            f"CREATE OR REPLACE TEMP TABLE {rows} AS SELECT {', '.join(selects)} FROM {source}",
            params + [str(staged.path), {spec.name: "JSON" for spec in specs}],
        )
    except duckdb.Error as exc:
        raise explain_unreadable(staged.path, exc) from None
    if cursor.execute(f"SELECT 1 FROM {rows} WHERE _type_fault LIMIT 1").fetchall():
        cursor.execute(f"DROP TABLE {rows}")
        return False
    _view_with_ordinals(cursor, staged, rows, numbered=not ordered)
    return True


def _view_with_ordinals(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, rows: str, numbered: bool
) -> None:
    """The stage: a view of the temp table `rows` (filled in file order) without its
    `_type_fault` column, adding each record's ordinal unless the rows are `numbered` already."""
    # rowids count from the table's first row (inside a transaction, from DuckDB's local base)
    base = cursor.execute(f"SELECT min(rowid) FROM {rows}").fetchone()[0] or 0
    row = "" if numbered else f"rowid - {int(base)} + 1 AS {ROW}, "
    cursor.execute(
        f"CREATE OR REPLACE TEMP VIEW {staged.stage} AS"
        f" SELECT {row}* EXCLUDE (_type_fault) FROM {rows}"
    )
    staged.is_view, staged.backing = True, rows


def _stage_from_raw_values(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Raw JSON read, type check naming records and values, typed stage."""
    raw = staged.stage + "_raw"
    columns = {spec.name: "JSON" for spec in specs}
    try:
        cursor.execute(
            f"CREATE OR REPLACE TEMP TABLE {raw} AS SELECT ordinality AS {ROW}, *"
            f" FROM {_READ_JSON}",
            [str(staged.path), columns],
        )
    except duckdb.Error as exc:
        raise explain_unreadable(staged.path, exc) from None
    found = first_faults(cursor, raw, _type_faults(specs))
    if found:
        raise ImportFailure(staged.problems(found))
    selects, params = [ROW], []
    for spec in specs:
        expr, expr_params = _extract(spec, f'"{spec.name}"')
        selects.append(f'{expr} AS "{spec.name}"')
        params += expr_params
    cursor.execute(
        f"CREATE OR REPLACE TEMP TABLE {staged.stage} AS SELECT {', '.join(selects)} FROM {raw}",
        params,
    )
    cursor.execute(f"DROP TABLE {raw}")


def stage_jsonl(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Stage a JSONL file: shape check, then the typed stage in one pass when every value has
    its field's JSON type (the raw path names the records whose values do not)."""
    _check_record_shapes(cursor, staged, specs)
    if not _stage_typed_in_one_pass(cursor, staged, specs):
        _stage_from_raw_values(cursor, staged, specs)


# -- Parquet -------------------------------------------------------------------------------
_PARQUET_FAMILIES = {
    "str": ("VARCHAR",),
    "int": (
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINTEGER",
        "UBIGINT",
        "HUGEINT",
    ),
    "bool": ("BOOLEAN",),
}
_PARQUET_FAMILIES["float"] = _PARQUET_FAMILIES["int"] + ("FLOAT", "DOUBLE", "DECIMAL")
_PARQUET_FAMILIES["list_str"] = tuple(t + "[]" for t in _PARQUET_FAMILIES["str"])
_PARQUET_FAMILIES["list_int"] = tuple(t + "[]" for t in _PARQUET_FAMILIES["int"])


def _parquet_type_ok(spec: FieldSpec, column_type: str) -> bool:
    is_list = column_type.endswith("[]")
    base = column_type.removesuffix("[]").split("(")[0] + ("[]" if is_list else "")
    return base in _PARQUET_FAMILIES[spec.kind] or column_type == '"NULL"'


_WIDER_THAN_BIGINT = ("UBIGINT", "HUGEINT", "UHUGEINT")


def _check_parquet_int_range(
    cursor: duckdb.DuckDBPyConnection,
    staged: StagedFile,
    specs: tuple[FieldSpec, ...],
    schema: dict[str, str],
) -> None:
    """Integer columns of a type wider than BIGINT must hold only values BIGINT can store
    (otherwise the cast fails mid-import with no record named)."""
    for spec in specs:
        column_type = schema.get(spec.name, "")
        if spec.kind not in ("int", "list_int") or not column_type.startswith(_WIDER_THAN_BIGINT):
            continue
        column = f'"{spec.name}"'
        rows = cursor.execute(
            f"SELECT ordinality, left(CAST({column} AS VARCHAR), 80)"
            f" FROM read_parquet(?) WITH ORDINALITY WHERE {column} IS NOT NULL"
            f" AND TRY_CAST({column} AS {spec.sql_type}) IS NULL ORDER BY ordinality LIMIT 10",
            [str(staged.path)],
        ).fetchall()
        if rows:
            message = f"integer out of range (must fit 64 bits: {INT64_RANGE})"
            raise ImportFailure(
                staged.problems([(n, spec.name, f"{message} (got {v})") for n, v in rows])
            )


def stage_parquet(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Stage a Parquet file: schema check (names, types, required columns), then a typed cast."""
    try:
        schema = dict(
            cursor.execute(
                "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))",
                [str(staged.path)],
            ).fetchall()
        )
    except duckdb.Error as exc:
        raise fail(
            staged.file_label,
            "(file)",
            "-",
            f"not a readable Parquet file: {str(exc).splitlines()[0]}",
        ) from None
    names = [spec.name for spec in specs]
    problems = [
        Problem(staged.file_label, "(schema)", col, f"unknown column{_closest(col, names)}")
        for col in schema
        if col not in names
    ]
    for spec in specs:
        if spec.name not in schema and spec.required:
            problems.append(
                Problem(staged.file_label, "(schema)", spec.name, "required column missing")
            )
        elif spec.name in schema and not _parquet_type_ok(spec, schema[spec.name]):
            problems.append(
                Problem(
                    staged.file_label,
                    "(schema)",
                    spec.name,
                    f"column type {schema[spec.name]}; must be {type_words(spec)}",
                )
            )
    if problems:
        raise ImportFailure(problems)
    _check_parquet_int_range(cursor, staged, specs, schema)
    # the reader's own row number, not WITH ORDINALITY, which reads the file on one thread
    selects, params = [f"file_row_number + 1 AS {ROW}"], []
    for spec in specs:
        if spec.name in schema:
            expr, expr_params = f'CAST("{spec.name}" AS {spec.sql_type})', []
            if spec.default is not None:
                expr, expr_params = f"coalesce({expr}, ?::{spec.sql_type})", [spec.default]
        else:
            expr, expr_params = f"?::{spec.sql_type}", [spec.default]
        selects.append(f'{expr} AS "{spec.name}"')
        params += expr_params
    # A view, not a copy: Parquet is typed and columnar, so each check reads only its columns
    # straight from the file and the insert reads it once more; nothing is written twice.
    # (A relation carries the bound path and defaults; SQL text never holds a value.)
    relation = cursor.sql(
        f"SELECT {', '.join(selects)} FROM read_parquet(?, file_row_number = true)",
        params=params + [str(staged.path)],
    )
    relation.create_view(staged.stage, replace=True)
    staged.is_view = True


def drop_stage(cursor: duckdb.DuckDBPyConnection, staged: StagedFile) -> None:
    """Remove the stage (a temp view, with its rows' temp table for JSONL, or a temp table)."""
    cursor.execute(f"DROP {'VIEW' if staged.is_view else 'TABLE'} IF EXISTS {staged.stage}")
    if staged.backing:
        cursor.execute(f"DROP TABLE IF EXISTS {staged.backing}")
