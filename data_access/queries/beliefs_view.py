"""Queries of the Belief timelines page: belief lanes, meta-belief lanes, a belief's basis.

Belief spans are in scene indices and in seconds (scene start → start of the revising scene, or
the film's end when never revised), so the figure can draw either axis.
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def belief_holders(store: Store, film_id: str) -> pd.DataFrame:
    """Characters holding beliefs or meta-beliefs in a film, with counts."""
    return store.df(
        """
        SELECT holder, sum(beliefs)::INT AS beliefs, sum(meta)::INT AS meta_beliefs FROM (
            SELECT holder, count(*) AS beliefs, 0 AS meta FROM current_beliefs WHERE film_id = ?
                GROUP BY 1
            UNION ALL
            SELECT holder, 0, count(*) FROM current_meta_beliefs WHERE film_id = ? GROUP BY 1
        ) GROUP BY holder ORDER BY sum(beliefs) + sum(meta) DESC, holder
        """,
        [film_id, film_id],
    )


def belief_lanes(store: Store, film_id: str, holders: list[str]) -> pd.DataFrame:
    """Beliefs of the given holders with their span over the film.

    Columns: holder, belief_id, kind, content, source_character, believed, is_false, revises,
    scene_index, end_scene, start_s, end_s, basis (comma-joined), rejected.
    """
    return store.df(
        """
        WITH sc AS (SELECT scene_index, start_s, end_s FROM current_scenes WHERE film_id = ?),
        bounds AS (SELECT max(scene_index) AS last_scene, max(end_s) AS last_s FROM sc),
        film AS (SELECT runtime_s FROM films WHERE film_id = ?)
        SELECT b.holder, b.belief_id, b.kind, b.content, b.source_character, b.believed,
               coalesce(b.is_false, false) AS is_false, b.revises, b.scene_index,
               coalesce(b.revised_at_scene, bounds.last_scene + 1) AS end_scene,
               s.start_s,
               coalesce(r.start_s, film.runtime_s, bounds.last_s) AS end_s,
               array_to_string(coalesce(b.basis, []), ', ') AS basis,
               coalesce(b.kind = 'told' AND b.believed = false, false) AS rejected,
               b.revised_at_scene, b.trigger
        FROM current_beliefs b
        CROSS JOIN bounds LEFT JOIN film ON true
        LEFT JOIN sc s ON s.scene_index = b.scene_index
        LEFT JOIN sc r ON r.scene_index = b.revised_at_scene
        WHERE b.film_id = ? AND list_contains(?, b.holder)
        ORDER BY b.holder, b.scene_index, b.belief_id
        """,
        [film_id, film_id, film_id, list(holders)],
    )


def meta_belief_lane(store: Store, film_id: str, holders: list[str]) -> pd.DataFrame:
    """Meta-beliefs held by the given characters (what X thinks Y believes), with times."""
    return store.df(
        """
        SELECT m.holder, m.meta_id, m.about, m.scene_index, s.start_s, m.claim, m.type, m.change,
               m.source, m.order_depth, array_to_string(coalesce(m.basis, []), ', ') AS basis
        FROM current_meta_beliefs m
        LEFT JOIN current_scenes s ON s.film_id = m.film_id AND s.scene_index = m.scene_index
        WHERE m.film_id = ? AND list_contains(?, m.holder)
        ORDER BY m.holder, m.scene_index, m.meta_id
        """,
        [film_id, list(holders)],
    )


def belief_basis(
    store: Store, film_id: str, holder: str, belief_id: str, scene_index: int
) -> pd.DataFrame:
    """The scene events a belief rests on (its basis ids, or its formation scene's events).

    A belief is named by holder, id and formation scene: current rows may come from several runs
    (migration 301), whose ids can repeat in other scenes."""
    return store.df(
        """
        WITH b AS (SELECT * FROM current_beliefs
                   WHERE film_id = ? AND holder = ? AND belief_id = ? AND scene_index = ?)
        SELECT e.event_id, e.scene_index, s.heading, s.start_s, e.description
        FROM current_scene_events e JOIN b ON e.film_id = b.film_id
        LEFT JOIN current_scenes s ON s.film_id = e.film_id AND s.scene_index = e.scene_index
        WHERE list_contains(coalesce(b.basis, []), e.event_id)
           OR (len(coalesce(b.basis, [])) = 0 AND e.scene_index = b.scene_index)
        ORDER BY e.scene_index, e.ord
        """,
        [film_id, holder, belief_id, scene_index],
    )


def questions_citing_belief(
    store: Store, film_id: str, holder: str, belief_id: str, scene_index: int
) -> pd.DataFrame:
    """Questions whose evidence cites the scene where the belief forms or is revised."""
    return store.df(
        """
        WITH b AS (SELECT scene_index, revised_at_scene FROM current_beliefs
                   WHERE film_id = ? AND holder = ? AND belief_id = ? AND scene_index = ?)
        SELECT DISTINCT q.question_id, q.qtype, q.center, q.status, q.text
        FROM questions q JOIN question_evidence e USING (question_id), b
        WHERE q.film_id = ?
          AND (e.scene_index = b.scene_index OR e.scene_index = b.revised_at_scene)
        ORDER BY q.question_id
        """,
        [film_id, holder, belief_id, scene_index, film_id],
    )
