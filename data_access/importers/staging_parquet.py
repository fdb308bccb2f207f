"""Stage a Parquet table file (data_access/importers/staging.py has what both formats share):
Parquet is typed already, so its schema is checked once (names, types, required columns) and
the stage is a view casting the file's columns."""

from __future__ import annotations

import duckdb

from data_access.importers.errors import ImportFailure, Problem, fail
from data_access.importers.fields import INT64_RANGE, FieldSpec, type_words
from data_access.importers.staging import ROW, StagedFile, closest_hint

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


def parquet_select(
    cursor: duckdb.DuckDBPyConnection,
    staged: StagedFile,
    specs: tuple[FieldSpec, ...],
    numbered: bool = True,
) -> tuple[str, list]:
    """The schema check (names, types, required columns), then the SELECT (with its parameters)
    reading the file typed; `numbered` adds each row's number (the checked insert needs none)."""
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
        Problem(staged.file_label, "(schema)", col, f"unknown column{closest_hint(col, names)}")
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
    selects, params = ([f"file_row_number + 1 AS {ROW}"] if numbered else []), []
    for spec in specs:
        if spec.name in schema:
            expr, expr_params = f'CAST("{spec.name}" AS {spec.sql_type})', []
            if spec.default is not None:
                expr, expr_params = f"coalesce({expr}, ?::{spec.sql_type})", [spec.default]
        else:
            expr, expr_params = f"?::{spec.sql_type}", [spec.default]
        selects.append(f'{expr} AS "{spec.name}"')
        params += expr_params
    return (
        f"SELECT {', '.join(selects)} FROM read_parquet(?, file_row_number = {numbered})",
        params + [str(staged.path)],
    )


def _first_non_utf8(path, columns: list[str]) -> Problem | None:
    """The first value of `columns` that is not UTF-8, as a Problem (the error path only)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=columns)
    for name in columns:
        column = table.column(name)
        is_list = pa.types.is_list(column.type) or pa.types.is_large_list(column.type)
        raw = column.cast(pa.list_(pa.binary()) if is_list else pa.binary()).to_pylist()
        for row, value in enumerate(raw, start=1):
            for item in (value or []) if is_list else [value]:
                try:
                    (item or b"").decode("utf-8")
                except UnicodeDecodeError as exc:
                    return Problem(
                        path.name,
                        f"row {row}",
                        name,
                        f"text is not UTF-8 (byte 0x{item[exc.start]:02X} at {exc.start}):"
                        " write the column as UTF-8 strings",
                    )
    return None


def _check_parquet_text(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """String columns hold UTF-8. Parquet's string type promises it, but a writer that does not
    validate can break it, and DuckDB then fails in whichever check reads the column first,
    naming no record."""
    columns = [spec.name for spec in specs if spec.kind in ("str", "list_str")]
    names = set(
        cursor.execute(
            "SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(?))", [str(staged.path)]
        ).fetchall()
    )
    columns = [name for name in columns if (name,) in names]
    if not columns:
        return
    reads = ", ".join(f'max(length(CAST("{name}" AS VARCHAR)))' for name in columns)
    try:
        cursor.execute(f"SELECT {reads} FROM read_parquet(?)", [str(staged.path)]).fetchall()
    except duckdb.InvalidInputException as exc:
        if "string encoding" not in str(exc):
            raise
        problem = _first_non_utf8(staged.path, columns)
        if problem is None:
            problem = Problem(staged.file_label, "(file)", "-", str(exc).splitlines()[0])
        raise ImportFailure([problem]) from None


def stage_parquet(
    cursor: duckdb.DuckDBPyConnection, staged: StagedFile, specs: tuple[FieldSpec, ...]
) -> None:
    """Stage a Parquet file for the explaining path: the typed, numbered read as a view, its
    text checked to be UTF-8 first (one scan of its string columns, on this path only)."""
    # A view, not a copy: Parquet is typed and columnar, so each check reads only its columns
    # straight from the file and the insert reads it once more; nothing is written twice.
    # (A relation carries the bound path and defaults; SQL text never holds a value.)
    select, params = parquet_select(cursor, staged, specs)
    _check_parquet_text(cursor, staged, specs)
    cursor.sql(select, params=params).create_view(staged.stage, replace=True)
    staged.is_view = True
