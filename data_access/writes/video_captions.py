"""Video chunk captions: what a caption run writes, and what the captions settings read."""

from __future__ import annotations

import duckdb
import pandas as pd

from data_access.store import Store

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
    cursor.register("incoming_captions", pd.DataFrame(rows, columns=CAPTION_COLUMNS))
    try:
        cursor.execute(
            f"INSERT OR IGNORE INTO video_captions ({', '.join(CAPTION_COLUMNS)})"
            f" SELECT {', '.join(CAPTION_COLUMNS)} FROM incoming_captions"
        )
    finally:
        cursor.unregister("incoming_captions")
    return len(rows)


def film_captions(store: Store, film_id: str, captioner: str | None = None) -> pd.DataFrame:
    """The current captions of a film, chunk by chunk in time order: chunk_index, start_s,
    end_s, caption, frame_times, characters, captioner, backend, run_id. `captioner` None:
    the captioner whose finished run is the latest."""
    if captioner is None:
        latest = store.rows(
            "SELECT c.captioner FROM current_video_captions c JOIN runs r USING (run_id)"
            " WHERE c.film_id = ? ORDER BY r.started_at DESC LIMIT 1",
            [film_id],
        )
        if not latest:
            return pd.DataFrame(columns=CAPTION_COLUMNS)
        captioner = latest[0][0]
    return store.df(
        "SELECT chunk_index, start_s, end_s, caption, frame_times, characters, captioner,"
        " backend, run_id FROM current_video_captions WHERE film_id = ? AND captioner = ?"
        " ORDER BY start_s",
        [film_id, captioner],
    )


def run_caption_count(store: Store, run_id: str) -> int:
    """How many chunks a caption run has written so far."""
    return store.rows("SELECT count(*) FROM video_captions WHERE run_id = ?", [run_id])[0][0]
