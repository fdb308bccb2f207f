"""How a film's scenes were timed: the ingest run's dialogue match share and its threshold
(`storyscope film ingest --min-match`), for the Film page."""

from __future__ import annotations

import json

from data_access.store import Store

# The default acceptance threshold of `film ingest` (pipelines/preprocess/ingest.py).
DEFAULT_MIN_MATCH = 0.15


def ingest_match(store: Store, film_id: str) -> dict | None:
    """{"share_lines_matched", "min_match", "low"} of the run that wrote the film's current
    scenes, or None when they were not written by `film ingest` (imports, synthetic data)."""
    frame = store.df(
        "SELECT r.params FROM runs r"
        " WHERE r.run_id = (SELECT max(run_id) FROM current_scenes WHERE film_id = ?)"
        " AND r.step = 'preprocess.film'",
        [film_id],
    )
    if frame.empty or frame.iloc[0]["params"] is None:
        return None
    params = frame.iloc[0]["params"]
    params = json.loads(params) if isinstance(params, str) else dict(params)
    share = params.get("share_lines_matched")
    if share is None:
        return None
    threshold = params.get("min_match", DEFAULT_MIN_MATCH)
    return {
        "share_lines_matched": float(share),
        "min_match": float(threshold),
        "low": float(share) < DEFAULT_MIN_MATCH,
    }
