"""Stage one table file into a typed temp table, streaming it through DuckDB's own readers.

JSONL goes through two DuckDB scans: `read_ndjson_objects` (every record must be a JSON object
whose keys are model fields) and `read_json` with every model field read as raw `JSON`, so the
value's own JSON type can be checked (DuckDB would silently turn `5` into `'5'` or round `1.5`
into an integer column). Parquet is typed already: its schema is checked once, then cast.
Python never holds the file: it only reads lines on the error path, to turn DuckDB's record
ordinal into a line number and to explain a malformed line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import charset_normalizer
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


# -- explaining lines DuckDB could not read ----------------------------------------------
def _field_with_bytes(raw: bytes, encoding: str) -> str:
    """The field whose value holds the non-UTF-8 bytes, when the line still parses."""
    try:
        record = json.loads(raw.decode(encoding))
    except (ValueError, UnicodeDecodeError):
        return "-"
    if isinstance(record, dict):
        for key, value in record.items():
            if any(ord(ch) > 127 for ch in json.dumps(value, ensure_ascii=False)):
                return key
    return "-"


def _explain_line(file: str, line_no: int, raw: bytes) -> Problem | None:
    """Why one JSONL line is unreadable, or None when it is fine."""
    body = raw[3:] if line_no == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        guess = charset_normalizer.from_bytes(body).best()
        encoding = guess.encoding if guess else "latin-1"
        return Problem(
            file,
            f"line {line_no}",
            _field_with_bytes(body, encoding),
            f"text is not UTF-8 (byte 0x{body[exc.start]:02X} at column {exc.start + 1};"
            f" looks like {encoding}): re-save the file as UTF-8",
        )
    if text.startswith("\ufeff"):
        return Problem(
            file,
            f"line {line_no}",
            "-",
            "a UTF-8 byte-order mark in the middle of the"
            " file (were two files concatenated?): remove it",
        )
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return Problem(
            file, f"line {line_no}", "-", f"invalid JSON: {exc.msg} (column {exc.colno})"
        )
    if not isinstance(record, dict):
        return Problem(file, f"line {line_no}", "-", "record is not a JSON object")
    return None


def explain_unreadable(path: Path, duckdb_error: Exception) -> ImportFailure:
    """Stream the file line by line to find the first line DuckDB could not read."""
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if raw.strip():
                problem = _explain_line(path.name, line_no, raw.rstrip(b"\r\n"))
                if problem is not None:
                    return ImportFailure([problem])
    first_line = str(duckdb_error).splitlines()[0]
    return fail(path.name, "(file)", "-", f"could not be read: {first_line}")


# -- JSONL ---------------------------------------------------------------------------------
def _closest(name: str, choices: list[str]) -> str:
    match = process.extractOne(name, choices, score_cutoff=70)
    return f" (did you mean '{match[0]}'?)" if match else ""


def _check_record_shapes(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Every record is an object with known keys; models forbid extra fields (lfvqa.Record)."""
    names = [spec.name for spec in specs]
    try:
        rows = cursor.execute(
            "SELECT ordinality, json_type(json) AS t,"
            " list_filter(json_keys(json), lambda k: NOT list_contains(?::VARCHAR[], k)) AS extra,"
            f" {TRAILING_COMMA_SQL} AS trailing_comma"
            " FROM read_ndjson_objects(?) WITH ORDINALITY"
            " WHERE t <> 'OBJECT' OR len(extra) > 0 OR trailing_comma ORDER BY ordinality LIMIT 10",
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


def _type_faults(specs: tuple[FieldSpec, ...]) -> list[Fault]:
    """Checks on the raw JSON values: each value has its field's JSON type."""
    faults = []
    for spec in specs:
        column = f'"{spec.name}"'
        faults.append(
            Fault(
                spec.name,
                f"{column} IS NOT NULL AND NOT list_contains(?::VARCHAR[], json_type({column}))",
                [list(spec.json_types)],
                f"must be {type_words(spec)}",
                show_value=True,
            )
        )
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


def _extract(spec: FieldSpec, column: str) -> tuple[str, list]:
    """SQL turning a raw JSON column into the field's typed value, defaulted like the model."""
    expr = f"({column} ->> '$')" if spec.kind == "str" else f"CAST({column} AS {spec.sql_type})"
    if spec.default is None:
        return expr, []
    return f"coalesce({expr}, ?::{spec.sql_type})", [spec.default]


def stage_jsonl(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Stage a JSONL file: shape check, raw JSON read, type check, typed stage."""
    _check_record_shapes(cursor, staged, specs)
    raw = staged.stage + "_raw"
    columns = {spec.name: "JSON" for spec in specs}
    try:
        cursor.execute(
            f"CREATE OR REPLACE TEMP TABLE {raw} AS SELECT ordinality AS {ROW}, *"
            " FROM read_json(?, format='newline_delimited', columns=?) WITH ORDINALITY",
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
    selects, params = [f"ordinality AS {ROW}"], []
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
        f"SELECT {', '.join(selects)} FROM read_parquet(?) WITH ORDINALITY",
        params=params + [str(staged.path)],
    )
    relation.create_view(staged.stage, replace=True)
    staged.is_view = True


def drop_stage(cursor: duckdb.DuckDBPyConnection, staged: StagedFile) -> None:
    """Remove the stage (a temp view for Parquet, a temp table for JSONL)."""
    cursor.execute(f"DROP {'VIEW' if staged.is_view else 'TABLE'} IF EXISTS {staged.stage}")
