"""Append rows built in Python to a store table: the one bulk-insert path of `data_access`.

Rows travel as one Arrow table (or a pandas frame) registered on the caller's cursor and go
in with one `INSERT ... SELECT`, so values are data, never SQL text, and a run's rows land in
the caller's transaction. (DuckDB's `executemany` is ~100x slower.) Table and column names come
from the caller's constants, never from input.

- `append_rows`: rows as dicts keyed by column name.
- `append_table`: rows already in an Arrow table or a frame (a worker's rows, a parsed batch).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import duckdb
import pandas as pd
import pyarrow as pa

_VIEW = "_appended_rows"

Columns = Mapping[str, pa.DataType] | Sequence[str]
# What a row whose key is in the table already does: fail the statement (and so the caller's
# transaction), keep the row there, or replace it.
Conflict = Literal["error", "ignore", "replace"]
_VERBS = {"error": "INSERT", "ignore": "INSERT OR IGNORE", "replace": "INSERT OR REPLACE"}


def append_rows(
    cursor: duckdb.DuckDBPyConnection,
    table: str,
    rows: Iterable[Mapping[str, Any]],
    columns: Columns | None = None,
    fixed: Mapping[str, Any] | None = None,
    conflict: Conflict = "error",
) -> int:
    """Append `rows` (dicts keyed by column name) to `table`; return how many.

    Args:
        columns: the columns written. With their Arrow types (a mapping), a column that is
            empty or all NULL in this batch still arrives with its type; as names alone, Arrow
            infers each type and DuckDB casts on insert. None: the first row's keys. A key a
            row lacks is NULL.
        fixed: columns with one value for every row (the run, the dataset), bound as
            parameters rather than repeated per row.
        conflict: see `Conflict`.
    """
    rows = list(rows)
    if not rows:
        return 0
    names = list(columns if columns is not None else rows[0])
    schema = pa.schema(list(columns.items())) if isinstance(columns, Mapping) else None
    projected = [{name: row.get(name) for name in names} for row in rows]
    arrow = pa.Table.from_pylist(projected, schema=schema)
    return append_table(cursor, table, arrow, fixed=fixed, conflict=conflict)


def append_table(
    cursor: duckdb.DuckDBPyConnection,
    table: str,
    rows: pa.Table | pd.DataFrame,
    columns: Sequence[str] | None = None,
    fixed: Mapping[str, Any] | None = None,
    conflict: Conflict = "error",
) -> int:
    """Append the rows of an Arrow table or a frame, whose column names are `table`'s, to
    `table`; return how many.

    Args:
        columns: the columns written (None: all of `rows`').
        fixed, conflict: as `append_rows`.

    Raises:
        duckdb.Error: the insert failed (a key taken, a value of the wrong type); the
            caller's transaction is aborted, and this error is the one raised.
    """
    count = rows.num_rows if isinstance(rows, pa.Table) else len(rows)
    if count == 0:
        return 0
    names = list(columns if columns is not None else _column_names(rows))
    extra = dict(fixed or {})
    written = ", ".join(f'"{name}"' for name in [*names, *extra])
    selected = ", ".join([*(f'"{name}"' for name in names), *("?" for _ in extra)])
    cursor.register(_VIEW, rows)
    cursor.execute(
        f"{_VERBS[conflict]} INTO {table} ({written}) SELECT {selected} FROM {_VIEW}",
        list(extra.values()),
    )
    # Not in a `finally`: after a failed statement the transaction is aborted and unregister
    # would raise over the real error. The view stays registered until the next append
    # replaces it or the cursor closes.
    cursor.unregister(_VIEW)
    return count


def _column_names(rows: pa.Table | pd.DataFrame) -> list[str]:
    return list(rows.column_names if isinstance(rows, pa.Table) else rows.columns)
