"""Which keys an import's rows would collide with (rows themselves go in through
`data_access.store.append_rows`)."""

from __future__ import annotations

import duckdb
import pyarrow as pa

_VIEW = "_import_rows"


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
