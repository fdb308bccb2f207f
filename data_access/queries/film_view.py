"""Queries of the Film page: the film list, its scene timeline, presence grid and scene reader.

Every query is scoped to one film (or one scene) and reads the `current_*` views, so a page load
never scans the whole store.
"""

from __future__ import annotations

import pandas as pd

from data_access.rollups.source import source
from data_access.store import Store


def film_choices(store: Store) -> pd.DataFrame:
    """Every film, episode and story: id, title, kind, dataset (for selectors)."""
    return store.df(
        "SELECT film_id, title, year, kind, dataset_id, runtime_s FROM films"
        " ORDER BY kind = 'story', title, film_id"
    )


def film_header(store: Store, film_id: str) -> dict | None:
    """One film with its scene, character and question counts, or None."""
    frame = store.df(
        """
        SELECT f.film_id, f.title, f.year, f.kind, f.dataset_id, f.runtime_s, f.video_path, f.fps,
               (SELECT count(*) FROM current_scenes s WHERE s.film_id = f.film_id) AS scenes,
               (SELECT count(*) FROM current_characters c WHERE c.film_id = f.film_id)
                   AS characters,
               (SELECT count(*) FROM questions q WHERE q.film_id = f.film_id) AS questions
        FROM films f WHERE f.film_id = ?
        """,
        [film_id],
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def scene_timeline(store: Store, film_id: str) -> pd.DataFrame:
    """Scenes of a film in order with start/end seconds and how the times were obtained."""
    return store.df(
        "SELECT scene_index, heading, location, time_of_day, start_s, end_s,"
        " coalesce(time_source, 'none') AS time_source, summary"
        " FROM current_scenes WHERE film_id = ? ORDER BY scene_index",
        [film_id],
    )


def presence_grid(store: Store, film_id: str) -> pd.DataFrame:
    """Characters × scenes: one row per (scene, character) with the presence status."""
    return store.df(
        "SELECT scene_index, character, status, len(coalesce(witnessed_events, [])) AS witnessed"
        " FROM current_presence WHERE film_id = ? ORDER BY character, scene_index",
        [film_id],
    )


def scene_lines(store: Store, film_id: str, scene_index: int) -> pd.DataFrame:
    """The screenplay lines of one scene."""
    return store.df(
        "SELECT line_index, kind, character, parenthetical, text, start_s, end_s"
        " FROM current_script_lines WHERE film_id = ? AND scene_index = ? ORDER BY line_index",
        [film_id, scene_index],
    )


def scene_events(store: Store, film_id: str, scene_index: int) -> pd.DataFrame:
    """The atomic events of one scene with participants and witnesses."""
    return store.df(
        "SELECT event_id, ord, description, array_to_string(participants, ', ') AS participants,"
        " array_to_string(witnesses, ', ') AS witnesses"
        " FROM current_scene_events WHERE film_id = ? AND scene_index = ? ORDER BY ord",
        [film_id, scene_index],
    )


def scene_subtitles(store: Store, film_id: str, scene_index: int) -> pd.DataFrame:
    """Subtitle cues inside a scene's time span (or matched to one of its lines)."""
    return store.df(
        """
        WITH scene AS (
            SELECT start_s, end_s FROM current_scenes WHERE film_id = ? AND scene_index = ?),
        lines AS (SELECT line_index FROM current_script_lines WHERE film_id = ? AND scene_index = ?)
        SELECT s.cue_index, s.start_s, s.end_s, s.text, s.matched_line
        FROM current_subtitles s, scene
        WHERE s.film_id = ?
          AND ((s.start_s >= scene.start_s AND s.start_s < scene.end_s)
               OR s.matched_line IN (SELECT line_index FROM lines))
        ORDER BY s.start_s
        """,
        [film_id, scene_index, film_id, scene_index, film_id],
    )


def films_to_explore(store: Store, limit: int | None = 12) -> pd.DataFrame:
    """Films with the most questions (then beliefs), with what each page can show for them;
    `limit=None` lists every film. Reads the film counts rollup (resolving every film's current
    beliefs cost seconds at 10x: data_access.rollups.catalogue)."""
    return store.df(
        "SELECT f.film_id, f.title, f.kind, coalesce(c.questions, 0) AS questions,"
        " coalesce(c.beliefs, 0) AS beliefs, coalesce(c.has_tree, false) AS has_tree"
        f" FROM films f LEFT JOIN {source(store, 'rollup_film_counts')} c USING (film_id)"
        " ORDER BY questions DESC, beliefs DESC, f.title LIMIT ?",
        [limit],
    )


def first_film_with(store: Store, table: str) -> str | None:
    """A sensible default film for a page: the first (by title) that has rows in `table`
    ("scenes" for the Film page, "beliefs" for Belief timelines), preferring a film whose
    current rows are a hand-made gold annotation (backend `gold`: the showcase film).

    Gold runs are few (hand annotation), so the films holding any gold row are found in the table
    itself and only those are resolved through the current view; which films have beliefs at all
    is read from the film counts rollup. Resolving every film's current beliefs
    twice took 2-4 s at ten times the paper (the Belief timelines' first render)."""
    views = {"scenes": "current_scenes", "beliefs": "current_beliefs"}
    if table not in views:
        raise ValueError(f"no default-film rule for {table!r}")
    view = views[table]
    gold = [
        film
        for (film,) in store.rows(
            f"SELECT DISTINCT film_id FROM {table}"
            " WHERE run_id IN (SELECT run_id FROM runs WHERE backend = 'gold')"
        )
    ]
    if gold:  # of those, the films whose current rows are gold
        gold = [
            film
            for (film,) in store.rows(
                f"SELECT DISTINCT t.film_id FROM {view} t JOIN runs r USING (run_id)"
                " WHERE r.backend = 'gold' AND t.film_id IN (SELECT unnest(?::VARCHAR[]))",
                [gold],
            )
        ]
    if table == "beliefs":
        counts = source(store, "rollup_film_counts")
        has_rows = f"f.film_id IN (SELECT film_id FROM {counts} WHERE beliefs > 0)"
    else:
        has_rows = f"EXISTS (SELECT 1 FROM {view} t WHERE t.film_id = f.film_id)"
    return store.scalar(
        f"SELECT f.film_id FROM films f WHERE {has_rows}"
        " ORDER BY f.film_id NOT IN (SELECT unnest(?::VARCHAR[])), f.kind = 'story', f.title,"
        " f.film_id LIMIT 1",
        [gold],
    )
