"""Video chunk captions: what a caption run writes (the reader: data_access.queries.video)."""

from __future__ import annotations

import duckdb
import pandas as pd

from data_access.store import append_table

CAPTION_COLUMNS = [
    "film_id",
    "chunk_index",
    "start_s",
    "end_s",
    "caption",
    "frame_times",
    "characters",
    "captioner",
    "backend",
    "cache_key",
    "run_id",
]


def write_captions(cursor: duckdb.DuckDBPyConnection, rows: list[dict]) -> int:
    """Append caption rows (dicts keyed by CAPTION_COLUMNS). A chunk already written under the
    same run (a unit retried after a partial failure) keeps its first row."""
    if not rows:
        return 0
    frame = pd.DataFrame(rows, columns=CAPTION_COLUMNS)
    append_table(cursor, "video_captions", frame, conflict="ignore")
    return len(rows)
