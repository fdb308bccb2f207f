"""Append rows built in Python to a store table: the one bulk-insert path of `data_access`.

Rows travel as one Arrow table registered on the caller's cursor and go in with one `INSERT ...
SELECT`, so values are data, never SQL text, and a run's rows land in the caller's transaction.
Table and column names come from the caller's constants, never from input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import duckdb
import pyarrow as pa

_VIEW = "_appended_rows"

Columns = Mapping[str, pa.DataType] | Sequence[str]


def append_rows(
    cursor: duckdb.DuckDBPyConnection,
    table: str,
    rows: Iterable[Mapping[str, Any]],
    columns: Columns | None = None,
    fixed: Mapping[str, Any] | None = None,
) -> int:
    """Append `rows` (dicts keyed by column name) to `table`; return how many.

    Args:
        columns: the columns written. With their Arrow types (a mapping), a column that is
            empty or all NULL in this batch still arrives with its type; as names alone, Arrow
            infers each type and DuckDB casts on insert. None: the first row's keys. A key a
            row lacks is NULL.
        fixed: columns with one value for every row (the run, the dataset), bound as
            parameters rather than repeated per row.
    """
    rows = list(rows)
    if not rows:
        return 0
    names = list(columns if columns is not None else rows[0])
    schema = pa.schema(list(columns.items())) if isinstance(columns, Mapping) else None
    projected = [{name: row.get(name) for name in names} for row in rows]
    arrow = pa.Table.from_pylist(projected, schema=schema)
    extra = dict(fixed or {})
    written = ", ".join(f'"{name}"' for name in [*names, *extra])
    selected = ", ".join([*(f'"{name}"' for name in names), *("?" for _ in extra)])
    cursor.register(_VIEW, arrow)
    try:
        cursor.execute(
            f"INSERT INTO {table} ({written}) SELECT {selected} FROM {_VIEW}", list(extra.values())
        )
    finally:
        cursor.unregister(_VIEW)
    return len(rows)
