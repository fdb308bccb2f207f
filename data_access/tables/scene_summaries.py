"""Scene summaries: what a summariser reads (a film's scenes and lines) and what it writes."""

from __future__ import annotations

import duckdb
import pandas as pd

from data_access.store import Store


def film_scene_lines(store: Store, film_id: str) -> pd.DataFrame:
    """Every current script line of a film with its scene heading, in film order."""
    return store.df(
        "SELECT s.scene_index, s.heading, l.line_index, l.kind, l.character, l.text"
        " FROM current_scenes s LEFT JOIN current_script_lines l"
        " ON l.film_id = s.film_id AND l.scene_index = s.scene_index"
        " WHERE s.film_id = ? ORDER BY s.scene_index, l.line_index",
        [film_id],
    )


def films_without_summaries(store: Store) -> list[str]:
    """Films with script lines whose current scenes have no summary at all."""
    frame = store.df(
        "SELECT DISTINCT s.film_id FROM current_scenes s"
        " WHERE EXISTS (SELECT 1 FROM current_script_lines l WHERE l.film_id = s.film_id)"
        " GROUP BY s.film_id HAVING count(s.summary) = 0 ORDER BY s.film_id"
    )
    return list(frame["film_id"])


def write_scene_summaries(
    cursor: duckdb.DuckDBPyConnection, run_id: str, film_id: str, rows: list[tuple[int, str, str]]
) -> int:
    """Append (scene_index, summary, backend) rows of one film under `run_id`."""
    if not rows:
        return 0
    cursor.executemany(
        "INSERT INTO scene_summaries (film_id, scene_index, summary, backend, run_id)"
        " VALUES (?, ?, ?, ?, ?)",
        [(film_id, scene, summary, backend, run_id) for scene, summary, backend in rows],
    )
    return len(rows)


def current_summaries(store: Store, film_id: str) -> pd.DataFrame:
    """scene_index, summary, summary_backend of a film's current scenes."""
    return store.df(
        "SELECT scene_index, summary, summary_backend FROM current_scenes"
        " WHERE film_id = ? ORDER BY scene_index",
        [film_id],
    )
