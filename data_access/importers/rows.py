"""Bulk writes of records built in Python (the StoryVideoQA release path).

Records go to DuckDB as one Arrow table per store table, registered on the import's cursor and
inserted with one `INSERT ... SELECT`: values travel as data, never as SQL text.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

_VIEW = "_import_rows"


def insert_rows(
    cursor: duckdb.DuckDBPyConnection,
    table: str,
    rows: list[dict],
    run_id: str,
    dataset_id: str | None = None,
) -> int:
    """Insert `rows` (dicts with the same keys, named like the store columns) into `table`."""
    if not rows:
        return 0
    names = list(rows[0])
    cursor.register(_VIEW, pa.Table.from_pylist(rows))
    try:
        columns = ", ".join(f'"{name}"' for name in names)
        extra_cols, extra_vals, params = ", run_id", ", ?", [run_id]
        if dataset_id is not None:
            extra_cols, extra_vals = extra_cols + ", dataset_id", extra_vals + ", ?"
            params.append(dataset_id)
        cursor.execute(
            f"INSERT INTO {table} ({columns}{extra_cols})"
            f" SELECT {columns}{extra_vals} FROM {_VIEW}",
            params,
        )
    finally:
        cursor.unregister(_VIEW)
    return len(rows)


def keys_present(
    cursor: duckdb.DuckDBPyConnection, table: str, column: str, values: list[str]
) -> dict[str, str]:
    """Which of `values` the store's `table.column` already holds, with the run that wrote each."""
    if not values:
        return {}
    cursor.register(_VIEW, pa.table({"key": values}))
    try:
        found = cursor.execute(
            f'SELECT t."{column}", t.run_id FROM {table} t JOIN {_VIEW} k ON t."{column}" = k.key'
        ).fetchall()
    finally:
        cursor.unregister(_VIEW)
    return dict(found)
