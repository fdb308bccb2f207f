"""Queries of the Questions page: filter options, the filtered list, one question's rubric and
evidence map (LF-VideoQA App. H, Tables 9–11)."""

from __future__ import annotations

import pandas as pd

from data_access.rollups import full as rollups
from data_access.store import Store

LIST_LIMIT = 500


def question_facets(store: Store, film_id: str | None) -> pd.DataFrame:
    """Distinct (qtype, center, status, source) with counts, for the filter widgets."""
    return store.df(
        "SELECT qtype, center, status, source, count(*) AS n FROM questions"
        " WHERE (? IS NULL OR film_id = ?) GROUP BY ALL ORDER BY qtype, center",
        [film_id, film_id],
    )


# Each listed question's rubric and evidence sizes, computed for the picked questions ...
_SIZES_LIVE = """
        claims AS (SELECT question_id, count(*) AS claims, count(*) FILTER (role = 'core') AS core
                   FROM rubric_claims WHERE question_id IN (SELECT question_id FROM picked) GROUP BY
                       1),
        -- span: "the runtime between the earliest and latest cited scene" (LF-VideoQA Table 1),
        -- read as earliest evidence start to the latest cited scene's end when scene ends are known
        ev AS (SELECT e.question_id,
                      count(*) FILTER (len(coalesce(e.claim_ords, [])) > 0) AS evidence_scenes,
                      (max(coalesce(s.end_s, e.time_s)) FILTER (len(coalesce(e.claim_ords, [])) > 0)
                       - min(e.time_s) FILTER (len(coalesce(e.claim_ords, [])) > 0)) / 60.0 AS
                           span_min
               FROM question_evidence e JOIN picked p USING (question_id)
               LEFT JOIN current_scenes s ON s.film_id = p.film_id AND s.scene_index = e.scene_index
               GROUP BY 1),
"""
# ... or read from the question-shape rollup while fresh (data_access.rollups.questions: the same
# counts and span; computing them resolved every film's current scenes, 0.1 s at 10x)
_SIZES_ROLLUP = """
        claims AS (SELECT question_id, claims, core FROM rollup_question_shape
                   WHERE question_id IN (SELECT question_id FROM picked)),
        ev AS (SELECT question_id, cited_scenes AS evidence_scenes, span_min
               FROM rollup_question_shape WHERE question_id IN (SELECT question_id FROM picked)),
"""


def questions_list(
    store: Store,
    film_id: str | None = None,
    qtypes: tuple[str, ...] = (),
    centers: tuple[str, ...] = (),
    statuses: tuple[str, ...] = (),
    sources: tuple[str, ...] = (),
    checks: str | None = None,
    limit: int = LIST_LIMIT,
    run_id: str | None = None,
) -> pd.DataFrame:
    """Questions matching the filters (empty tuple = any), with rubric and evidence sizes.

    `checks` is "passed", "failed" or "unchecked": the outcome of the question's latest
    finished check run (question_check_results, m0400); None = any. `run_id` keeps the
    questions one run wrote (e.g. a generation run started from the page).

    Columns: question_id, film_id, title, qtype, center, status, source, text, claims, core,
    evidence_scenes, span_min (evidence span in minutes, as the paper's "over N min").
    """
    sizes = _SIZES_ROLLUP if rollups.rollups_fresh(store) else _SIZES_LIVE
    return store.df(
        f"""
        WITH checked AS (
            SELECT c.question_id, arg_max(c.passed, r.started_at) AS passed
            FROM question_check_results c JOIN runs r USING (run_id)
            WHERE r.status = 'finished' AND ? IS NOT NULL GROUP BY c.question_id
        ),
        picked AS (
            SELECT q.*, ch.passed AS checks_passed FROM questions q LEFT JOIN checked ch USING
                (question_id)
            WHERE (? IS NULL OR q.film_id = ?)
              AND (? IS NULL OR (? = 'passed' AND ch.passed) OR (? = 'failed' AND NOT ch.passed)
                   OR (? = 'unchecked' AND ch.passed IS NULL))
              AND (len(?) = 0 OR list_contains(?, q.qtype))
              AND (len(?) = 0 OR list_contains(?, q.center))
              AND (len(?) = 0 OR list_contains(?, q.status))
              AND (len(?) = 0 OR list_contains(?, q.source))
              AND (? IS NULL OR q.run_id = ?)
            ORDER BY q.film_id, q.question_id LIMIT ?
        ),
        {sizes}
        SELECT p.question_id, p.film_id, f.title, p.qtype, p.center, p.status, p.source, p.text,
               coalesce(c.claims, 0) AS claims, coalesce(c.core, 0) AS core,
               coalesce(ev.evidence_scenes, 0) AS evidence_scenes, round(ev.span_min) AS span_min,
               p.checks_passed
        FROM picked p LEFT JOIN films f USING (film_id) LEFT JOIN claims c USING (question_id)
        LEFT JOIN ev USING (question_id)
        ORDER BY p.film_id, p.question_id
        """,
        [
            checks,
            film_id,
            film_id,
            checks,
            checks,
            checks,
            checks,
            list(qtypes),
            list(qtypes),
            list(centers),
            list(centers),
            list(statuses),
            list(statuses),
            list(sources),
            list(sources),
            run_id,
            run_id,
            limit,
        ],
    )


def question_detail(store: Store, question_id: str) -> dict | None:
    """One question with its film's title, runtime and registered video, or None."""
    frame = store.df(
        "SELECT q.*, f.title, f.year, f.runtime_s, f.video_path"
        " FROM questions q LEFT JOIN films f USING (film_id)"
        " WHERE q.question_id = ?",
        [question_id],
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def rubric(store: Store, question_id: str) -> pd.DataFrame:
    """The rubric claims of a question in printed order (ord, role, text, evidence scenes)."""
    return store.df(
        "SELECT claim_id, ord, role, text, array_to_string(evidence_scenes, ', ') AS "
        "evidence_scenes"
        " FROM rubric_claims WHERE question_id = ? ORDER BY ord",
        [question_id],
    )


def evidence_map(store: Store, question_id: str) -> pd.DataFrame:
    """Evidence points of a question: time, location, scene, claim numbers, anchor flag."""
    return store.df(
        """
        SELECT e.ord, e.time_s, s.end_s AS scene_end_s, coalesce(e.location, s.location, s.heading)
            AS location,
               e.scene_index, coalesce(e.claim_ords, []) AS claim_ords, coalesce(e.is_anchor, false)
                   AS is_anchor
        FROM question_evidence e JOIN questions q USING (question_id)
        LEFT JOIN current_scenes s ON s.film_id = q.film_id AND s.scene_index = e.scene_index
        WHERE e.question_id = ? ORDER BY e.time_s NULLS LAST, e.ord
        """,
        [question_id],
    )


def question_runs(store: Store, film_id: str | None) -> pd.DataFrame:
    """Runs that wrote questions (of this film, or any), newest first, with their question count."""
    return store.df(
        "SELECT r.run_id, r.step, r.backend, r.status, r.started_at, count(*) AS questions"
        " FROM questions q JOIN runs r USING (run_id) WHERE (? IS NULL OR q.film_id = ?)"
        " GROUP BY ALL ORDER BY r.started_at DESC",
        [film_id, film_id],
    )
