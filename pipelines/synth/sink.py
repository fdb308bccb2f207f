"""Table files written a chunk at a time, so a dataset of any size is written in bounded memory.

A Parquet file's schema is the first chunk's; later chunks are cast to it (a column that happens
to be all null in a later chunk keeps its type). Each chunk becomes one or more row groups, which
DuckDB reads in parallel.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


class TableSink:
    """One table file (`NAME.parquet` or `NAME.jsonl`): `write(chunk)` appends, `close()` ends."""

    def __init__(self, out: Path, name: str, fmt: str) -> None:
        self.path = out / f"{name}.{fmt}"
        self.fmt = fmt
        self.rows = 0
        self._parquet: pq.ParquetWriter | None = None
        self._schema: pa.Schema | None = None
        # held open across chunks (closed by close()), so not a `with` block
        self._jsonl = open(self.path, "w", encoding="utf-8") if fmt == "jsonl" else None  # noqa: SIM115

    def write(self, chunk: list[dict] | pa.Table) -> None:
        """Append rows (dicts or an Arrow table); an empty chunk writes nothing."""
        table = self._as_table(chunk)
        if table is None or table.num_rows == 0:
            return
        self.rows += table.num_rows
        if self._jsonl is not None:
            for record in table.to_pylist():
                clean = {k: v for k, v in record.items() if v is not None}
                self._jsonl.write(json.dumps(clean) + "\n")
            return
        if self._parquet is None:
            self._schema = table.schema
            self._parquet = pq.ParquetWriter(self.path, table.schema)
        self._parquet.write_table(table)

    def _as_table(self, chunk: list[dict] | pa.Table) -> pa.Table | None:
        if isinstance(chunk, pa.Table):
            return chunk
        if not chunk:
            return None
        schema = self._schema if self._parquet is not None else None
        return pa.Table.from_pylist(chunk, schema=schema)

    def close(self) -> int:
        """Finish the file (an empty table still gets its file); return the rows written."""
        if self._jsonl is not None:
            self._jsonl.close()
        elif self._parquet is not None:
            self._parquet.close()
        else:
            pq.write_table(pa.table({}), self.path)
        return self.rows
