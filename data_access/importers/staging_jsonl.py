"""Stage a JSONL table file (data_access/importers/staging.py has what both formats share).

Two DuckDB scans: `read_ndjson_objects` (every record must be a JSON object whose keys are
model fields) and `read_json` with every model field read as raw `JSON`, so the value's own
JSON type can be checked (DuckDB would silently turn `5` into `'5'` or round `1.5` into an
integer column); that second scan casts to the typed stage and checks the JSON types in the
same pass, and only a file with a wrongly typed value is read again to name it.

Neither scan numbers its records with `WITH ORDINALITY` on the way in: DuckDB reads such a scan
on one thread, and the two scans were most of a JSONL import's wall time.
The shape check asks only whether a fault exists (a parallel scan) and numbers records on the
error path; the typed stage is a temp table filled in file order (`preserve_insertion_order`,
DuckDB's default, checked) whose rowids, counted from its first row, are the ordinals.

The checked insert (importers/checked_insert.py) takes the same two scans without a stage:
`jsonl_select` is the shape check and then the typed read as a SELECT the insert runs.
"""

from __future__ import annotations

import duckdb

from data_access.importers.checks import Fault, first_faults
from data_access.importers.errors import ImportFailure
from data_access.importers.fields import (
    INT64_RANGE,
    JSON_TYPE_WORDS,
    LIST_ITEMS,
    FieldSpec,
    type_words,
)
from data_access.importers.staging import ROW, StagedFile, closest_hint
from data_access.importers.unreadable import explain_unreadable
from data_access.importers.values import TRAILING_COMMA_SQL


def _check_record_shapes(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Every record is an object with known keys; models forbid extra fields (lfvqa.Record)."""
    names = [spec.name for spec in specs]
    extra_keys = "list_filter(json_keys(json), lambda k: NOT list_contains(?::VARCHAR[], k))"
    shape = f"json_type(json) AS t, {extra_keys} AS extra, {TRAILING_COMMA_SQL} AS trailing_comma"
    faulty = "t <> 'OBJECT' OR len(extra) > 0 OR trailing_comma"
    try:
        # Whether any record is faulty, on all cores; numbering the records is for the rare file
        # that has one (WITH ORDINALITY makes DuckDB read the file on one thread). The reader
        # keeps a record's text without its leading blanks, so an object is a text opening
        # with `{`: a test that, unlike json_type(), does not parse the record again.
        if not cursor.execute(
            "SELECT 1 FROM read_ndjson_objects(?) WHERE left(json, 1) <> '{'"
            f" OR len({extra_keys}) > 0 OR {TRAILING_COMMA_SQL} LIMIT 1",
            [str(staged.path), names],
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
                    f"unknown field{closest_hint(extra[0], names)};"
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


def _typed_selects(specs: tuple[FieldSpec, ...]) -> tuple[str, list]:
    """The SELECT list turning the raw JSON columns into the typed fields (`TRY_CAST`, so a wrong
    value cannot abort the statement) plus `_type_fault`, true when a value fails its JSON type."""
    selects, params = [], []
    for spec in specs:
        expr, expr_params = _extract(spec, f'"{spec.name}"', cast="TRY_CAST")
        selects.append(f'{expr} AS "{spec.name}"')
        params += expr_params
    fault, fault_params = _fast_type_fault(specs)
    selects.append(f"{fault} AS _type_fault")
    return ", ".join(selects), params + fault_params


def _insertion_order_kept(cursor: duckdb.DuckDBPyConnection) -> bool:
    return bool(cursor.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0])


def _stage_typed_in_one_pass(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> bool:
    """The typed stage straight from DuckDB's reader, with every type check evaluated in the same
    pass; False (and no stage) when a value has the wrong JSON type.

    Materialising the raw JSON values first, scanning them for type faults and then casting
    them cost three passes over the file's biggest columns (about 0.25 CPU s more per million
    records). `TRY_CAST` keeps a wrong value from aborting the transaction;
    such a row is flagged, and the caller then takes the raw path, whose messages show the
    offending JSON value. The rows land in a temp table in file order, read on all cores; the
    stage is a view adding each record's ordinal (from its rowid; module docstring).
    """
    ordered = _insertion_order_kept(cursor)
    rows = staged.stage + "_rows"
    selects, params = _typed_selects(specs)
    if not ordered:
        selects = f"ordinality AS {ROW}, {selects}"
    source = _READ_JSON_RECORDS if ordered else _READ_JSON
    try:
        cursor.execute(
            f"CREATE OR REPLACE TEMP TABLE {rows} AS SELECT {selects} FROM {source}",
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


# DuckDB's sniffer held to the top level: every field a JSON value, as `columns` above gives them
_READ_JSON_SNIFFED = "read_json(?, format='newline_delimited', maximum_depth=1)"


def _sniffed_read(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> str | None:
    """The sniffed read when it finds every field of the model as JSON (after the shape check,
    the file has no other keys), else None.

    DuckDB estimates a `read_json` with explicit `columns` at 42 rows, so a join on it builds
    its hash table on the whole file (a RIGHT join: 0.42 against 0.35 s wall for 0.9M
    predictions); the sniffer's sample gives the file's real size. Its values
    are the same JSON texts (tests/data_access/importers/test_import_checked.py). A field the
    sample lacks (an
    optional field first met later in a large file) keeps the explicit read.
    """
    try:
        found = cursor.execute(
            f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {_READ_JSON_SNIFFED})",
            [str(staged.path)],
        ).fetchall()
    except duckdb.Error:
        return None
    types = dict(found)
    return _READ_JSON_SNIFFED if all(types.get(s.name) == "JSON" for s in specs) else None


def jsonl_select(
    cursor: duckdb.DuckDBPyConnection,
    staged: StagedFile,
    specs: tuple[FieldSpec, ...],
    joined: bool = False,
) -> tuple[str, list]:
    """The checked insert's read (importers/checked_insert.py): after the shape check, the SELECT
    (with its parameters) reading the file typed, with `_type_fault` per record. Nothing is
    written and nothing is numbered: the insert reads the file once, on all cores; a fault sends
    the import to the explaining path (`stage_jsonl`), which names the record. A `joined` read
    (the insert joins it to another table) is sized for the planner when it can be."""
    _check_record_shapes(cursor, staged, specs)
    selects, params = _typed_selects(specs)
    sniffed = _sniffed_read(cursor, staged, specs) if joined else None
    if sniffed is not None:
        return f"SELECT {selects} FROM {sniffed}", params + [str(staged.path)]
    columns = {spec.name: "JSON" for spec in specs}
    return f"SELECT {selects} FROM {_READ_JSON_RECORDS}", params + [str(staged.path), columns]
