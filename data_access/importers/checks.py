"""Vectorised validation of a staged table file: one SQL pass per kind of check.

Row checks are derived from the model (`FieldSpec`): required fields, `Literal` enums,
`ge`/`gt`/`le`/`lt` bounds, `min_length`, and `end_s ≥ start_s` where a model has both.
All row checks of a file run as ONE scan that labels each record with its first fault; key
and reference checks are aggregate/anti-join queries that only look at rows when they fail.
Only the first few faults are fetched: the error path explains, the happy path stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from data_access.importers.catalog import store_catalog
from data_access.importers.errors import MAX_PROBLEMS
from data_access.importers.fields import FieldSpec, field_specs, type_words

ROW = "_row"


@dataclass(frozen=True)
class Fault:
    """One row-level check: `condition` (SQL over the stage's columns) is true when at fault."""

    field: str
    condition: str
    params: list = field(default_factory=list)
    message: str = ""
    show_value: bool = False
    value_sql: str | None = None  # what to show as the offending value (default: the field)


def first_faults(
    cursor: duckdb.DuckDBPyConnection, table: str, faults: list[Fault], limit: int = MAX_PROBLEMS
) -> list[tuple[int, str, str]]:
    """The first records of `table` failing any check, as (ordinal, field, message)."""
    if not faults:
        return []
    params: list = []
    whens = []
    for number, fault in enumerate(faults):
        whens.append(f"WHEN {fault.condition} THEN {number}")
        params += fault.params
    shows = (
        " ".join(
            f"WHEN {n} THEN left(CAST({f.value_sql or chr(34) + f.field + chr(34)} AS VARCHAR), 80)"
            for n, f in enumerate(faults)
            if f.show_value
        )
        or "WHEN -1 THEN NULL"
    )
    rows = cursor.execute(
        f"SELECT {ROW}, _fault, CASE _fault {shows} END FROM"
        f" (SELECT *, CASE {' '.join(whens)} END AS _fault FROM {table})"
        f" WHERE _fault IS NOT NULL ORDER BY {ROW} LIMIT ?",
        params + [limit],
    ).fetchall()
    found = []
    for ordinal, number, value in rows:
        fault = faults[number]
        message = fault.message + (f" (got {value})" if fault.show_value else "")
        found.append((int(ordinal), fault.field, message))
    return found


def _bound_faults(spec: FieldSpec, column: str) -> list[Fault]:
    bounds = (("ge", "<", "≥"), ("gt", "<=", ">"), ("le", ">", "≤"), ("lt", ">=", "<"))
    faults = []
    for attr, violated, word in bounds:
        limit = getattr(spec, attr)
        if limit is not None and not spec.is_list:
            faults.append(
                Fault(
                    spec.name,
                    f"{column} {violated} ?",
                    [limit],
                    f"must be {word} {limit:g}",
                    show_value=True,
                )
            )
    return faults


def _length_fault(spec: FieldSpec, column: str) -> list[Fault]:
    if spec.min_length is None:
        return []
    if spec.is_list:
        return [
            Fault(
                spec.name,
                f"len({column}) < ?",
                [spec.min_length],
                f"must have at least {spec.min_length} items",
                show_value=True,
            )
        ]
    words = (
        "must not be empty"
        if spec.min_length == 1
        else f"must have at least {spec.min_length} characters"
    )
    return [Fault(spec.name, f"length({column}) < ?", [spec.min_length], words)]


def value_faults(specs: tuple[FieldSpec, ...], rules: tuple = ()) -> list[Fault]:
    """The row checks a model's field constraints imply, in field order, then its cross-field
    `RowRule`s (formats/mcq_records.py), the same rules the model applies in Python."""
    faults: list[Fault] = []
    for spec in specs:
        column = f'"{spec.name}"'
        if spec.required or (not spec.nullable and spec.default is None):
            faults.append(Fault(spec.name, f"{column} IS NULL", [], "missing (required field)"))
        if spec.kind == "float":
            # NaN sorts above every number in DuckDB, so it would pass `> 0` and `≥ 0`.
            faults.append(
                Fault(
                    spec.name,
                    f"(isnan({column}) OR isinf({column}))",
                    [],
                    "must be a finite number (NaN and ±Infinity are not values)",
                    show_value=True,
                )
            )
        if spec.enum is not None:
            faults.append(
                Fault(
                    spec.name,
                    f"{column} IS NOT NULL AND NOT list_contains(?::{spec.sql_type}[], {column})",
                    [list(spec.enum)],
                    f"must be {type_words(spec)}",
                    show_value=True,
                )
            )
        if spec.is_list:
            # No null item: JSONL's type check refuses `[1, null]` (null is no integer), and
            # Parquet's list type allows one, so the rule is stated here for both formats.
            faults.append(
                Fault(
                    spec.name,
                    f"list_count({column}) < len({column})",
                    [],
                    f"must be {type_words(spec)} (an item is null)",
                    show_value=True,
                )
            )
        faults += _bound_faults(spec, column) + _length_fault(spec, column)
    names = {spec.name for spec in specs}
    if {"start_s", "end_s"} <= names:
        # A time span cannot end before it starts (Scene, ScriptLine, Subtitle).
        faults.append(
            Fault(
                "end_s",
                '"end_s" < "start_s"',
                [],
                "must be ≥ start_s",
                show_value=True,
                value_sql="'end_s ' || \"end_s\" || ' < start_s ' || \"start_s\"",
            )
        )
    faults += [Fault(rule.field, rule.violated_sql, [], rule.message) for rule in rules]
    return faults


def _key_text(key: tuple[str, ...], values: tuple) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in zip(key, values))


def duplicate_keys(
    cursor: duckdb.DuckDBPyConnection, table: str, key: tuple[str, ...]
) -> list[tuple[int, str, str]]:
    """Records whose key repeats an earlier record of the same file."""
    cols = ", ".join(f'"{name}"' for name in key)
    # Grouping by one 64-bit hash is several times faster than by the string key on millions of
    # rows; a hash repeat is only a candidate, confirmed by the exact query below.
    if not cursor.execute(
        f"SELECT 1 FROM {table} GROUP BY hash({cols}) HAVING count(*) > 1 LIMIT 1"
    ).fetchall():
        return []
    rows = cursor.execute(
        f"SELECT {ROW}, first_row, {cols} FROM (SELECT {ROW}, {cols},"
        f" min({ROW}) OVER (PARTITION BY {cols}) AS first_row FROM {table})"
        f" WHERE {ROW} <> first_row ORDER BY {ROW} LIMIT ?",
        [MAX_PROBLEMS],
    ).fetchall()
    return [
        (
            int(r[0]),
            "+".join(key),
            f"duplicate key ({_key_text(key, r[2:])}): same as record {r[1]} of this file",
        )
        for r in rows
    ]


def keys_in_store(
    cursor: duckdb.DuckDBPyConnection, stage: str, target: str, key: tuple[str, ...]
) -> list[tuple[int, str, str]]:
    """Records whose key is already in the store table `target`."""
    if not cursor.execute(f"SELECT 1 FROM {target} LIMIT 1").fetchall():
        return []
    on = " AND ".join(f's."{name}" = t."{name}"' for name in key)
    cols = ", ".join(f's."{name}"' for name in key)
    rows = cursor.execute(
        f"SELECT s.{ROW}, t.run_id, {cols} FROM {stage} s JOIN {target} t ON {on}"
        f" ORDER BY s.{ROW} LIMIT ?",
        [MAX_PROBLEMS],
    ).fetchall()
    return [
        (
            int(r[0]),
            "+".join(key),
            f"already in the store ({_key_text(key, r[2:])}, imported by run {r[1]})",
        )
        for r in rows
    ]


def unknown_references(
    cursor: duckdb.DuckDBPyConnection,
    stage: str,
    column: str,
    target: str,
    target_column: str,
    target_file: str,
) -> list[tuple[int, str, str]]:
    """Records whose `column` names no `target_column` in the store (this import included)."""
    missing = cursor.execute(
        f'SELECT DISTINCT "{column}" FROM {stage} WHERE "{column}" IS NOT NULL'
        f' EXCEPT SELECT "{target_column}" FROM {target} LIMIT 1'
    ).fetchall()
    if not missing:
        return []
    rows = cursor.execute(
        f'SELECT s.{ROW}, s."{column}" FROM {stage} s ANTI JOIN {target} t'
        f' ON s."{column}" = t."{target_column}" WHERE s."{column}" IS NOT NULL'
        f" ORDER BY s.{ROW} LIMIT ?",
        [MAX_PROBLEMS],
    ).fetchall()
    return [
        (
            int(r[0]),
            column,
            f"unknown {column} {r[1]!r}: not in {target_file} of this import nor in the store",
        )
        for r in rows
    ]


# Integer column types narrower than the BIGINT an integer field is staged as.
_NARROW_INTS = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INTEGER": (-(2**31), 2**31 - 1),
    "UTINYINT": (0, 2**8 - 1),
    "USMALLINT": (0, 2**16 - 1),
    "UINTEGER": (0, 2**32 - 1),
}


def store_range_faults(
    cursor: duckdb.DuckDBPyConnection, table: str, specs: tuple[FieldSpec, ...]
) -> list[Fault]:
    """Integer fields whose store column is narrower than 64 bits must fit that column, or the
    insert fails with no record named (`"ord": 4294967296` into an INTEGER column)."""
    types = store_catalog(cursor).column_types.get(table, {})
    faults = []
    for spec in specs:
        bounds = _NARROW_INTS.get(types.get(spec.name, "").removesuffix("[]"))
        if bounds is None or spec.kind not in ("int", "list_int"):
            continue
        column = f'"{spec.name}"'
        low, high = bounds
        if spec.is_list:
            condition = f"list_bool_or(list_transform({column}, lambda x: x < ? OR x > ?))"
        else:
            condition = f"({column} < ? OR {column} > ?)"
        faults.append(
            Fault(
                spec.name,
                condition,
                [low, high],
                f"out of range: must be between {low} and {high}",
                show_value=True,
            )
        )
    return faults


def duplicate_list_items(
    cursor: duckdb.DuckDBPyConnection, table: str, column: str
) -> list[tuple[int, str, str]]:
    """Records whose list `column` names one item twice (`"claim_ords": [1, 1]`)."""
    items = f'len(list_filter("{column}", lambda x: x IS NOT NULL))'
    rows = cursor.execute(
        f'SELECT {ROW}, "{column}" FROM {table}'
        f' WHERE len(list_distinct("{column}")) < {items}'
        f" ORDER BY {ROW} LIMIT ?",
        [MAX_PROBLEMS],
    ).fetchall()
    return [(int(r[0]), column, f"names an item twice (got {r[1]})") for r in rows]


def unknown_list_references(
    cursor: duckdb.DuckDBPyConnection,
    stage: str,
    ref: tuple[str, str, str, str, str],
    target_file: str,
) -> list[tuple[int, str, str]]:
    """Items of a list field that name no record of the same owner in `target`:
    `ref` = (list field, owner field, target table, target owner field, target field)."""
    column, owner, target, target_owner, target_column = ref
    rows = cursor.execute(
        f'SELECT s.{ROW}, s.item, s."{owner}" FROM'
        f' (SELECT {ROW}, "{owner}", unnest("{column}") AS item FROM {stage}) s'
        f' ANTI JOIN {target} t ON t."{target_owner}" = s."{owner}"'
        f' AND t."{target_column}" = s.item ORDER BY s.{ROW} LIMIT ?',
        [MAX_PROBLEMS],
    ).fetchall()
    return [
        (
            int(r[0]),
            column,
            f"{r[1]!r} is no {target_column} of {owner} {r[2]!r} in {target_file} of this"
            " import nor in the store",
        )
        for r in rows
    ]


def row_faults(cursor: duckdb.DuckDBPyConnection, table: str, model) -> list[Fault]:
    """Every row check of a table file: its model's (`value_faults`, with the model's
    `ROW_RULES`) and the store column's range (`store_range_faults`)."""
    specs = field_specs(model)
    rules = getattr(model, "ROW_RULES", ())
    return value_faults(specs, rules) + store_range_faults(cursor, table, specs)
