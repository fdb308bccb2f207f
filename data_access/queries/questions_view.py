"""Queries of the Questions page: filter options, the filtered list, one question's rubric and
evidence map (LF-VideoQA App. H, Tables 9–11)."""

from __future__ import annotations

import pandas as pd

from data_access.rollups.source import sources as rollup_sources
from data_access.store import Store

LIST_LIMIT = 500


FACETS = ("qtype", "center", "status", "source")


def question_facets(store: Store, film_id: str | None) -> pd.DataFrame:
    """The values of each filter (qtype, center, status, source) with their question counts:
    facet, value, n. One row per value, not per combination of the four (6k combinations at
    ten times the paper for a few hundred values)."""
    rows = store.rows(
        f"SELECT {', '.join(f'grouping({f}) = 0' for f in FACETS)}, {', '.join(FACETS)},"
        " count(*) FROM questions WHERE (? IS NULL OR film_id = ?)"
        f" GROUP BY GROUPING SETS ({', '.join(f'({f})' for f in FACETS)})",
        [film_id, film_id],
    )
    k = len(FACETS)
    long = [(FACETS[i], row[k + i], row[-1]) for row in rows for i in [row[:k].index(True)]]
    long.sort(key=lambda r: (FACETS.index(r[0]), r[1] is None, r[1]))
    return pd.DataFrame(long, columns=["facet", "value", "n"])


def facet_values(facets: pd.DataFrame, facet: str) -> list:
    """The sorted values of one facet of `question_facets`."""
    return sorted(facets.loc[facets["facet"] == facet, "value"])


# Each listed question's rubric and evidence sizes (claims, core, cited scenes and span: "the
# runtime between the earliest and latest cited scene", LF-VideoQA Table 1) from the
# question-shape rollup (data_access.rollups.questions), in one read of the picked questions' rows
_SIZES = """
        shape AS MATERIALIZED (
            SELECT question_id, claims, core, cited_scenes, span_min FROM {shape}
            WHERE question_id IN (SELECT question_id FROM picked) {films}),
        claims AS (SELECT question_id, claims, core FROM shape),
        ev AS (SELECT question_id, cited_scenes AS evidence_scenes, span_min FROM shape),
"""
# The film the first `limit` questions (by film and id) end in, from the film counts rollup: the
# list's default view reads the questions of the films up to it, not every question (the first
# 500 of 63k at ten times the paper). NULL when the store holds fewer questions.
_LAST_LISTED_FILM = """
    SELECT min(film_id) FROM (
        SELECT film_id, sum(questions) OVER (ORDER BY film_id ROWS UNBOUNDED PRECEDING) AS upto
        FROM {film_counts} WHERE questions > 0)
    WHERE upto >= ?
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
    unfiltered = not (film_id or qtypes or centers or statuses or sources or checks or run_id)
    shape, film_counts = rollup_sources(store, "rollup_question_shape", "rollup_film_counts")
    with store.session() as cursor:
        last_film = None
        if unfiltered:
            last_film = cursor.execute(
                _LAST_LISTED_FILM.format(film_counts=film_counts), [limit]
            ).fetchall()[0][0]
        # the questions (and their rollup rows) of the films up to the last listed one, if known
        bounded = last_film is not None
        sizes = _SIZES.format(shape=shape, films="AND film_id <= $last_film" if bounded else "")
        return cursor.execute(
            _LIST_SQL.format(sizes=sizes, films="AND q.film_id <= $last_film" if bounded else ""),
            {
                "checks": checks,
                "film": film_id,
                "qtypes": list(qtypes),
                "centers": list(centers),
                "statuses": list(statuses),
                "sources": list(sources),
                "run": run_id,
                "limit": limit,
                **({"last_film": last_film} if bounded else {}),
            },
        ).df()


_LIST_SQL = """
        WITH checked AS (
            SELECT c.question_id, arg_max(c.passed, r.started_at) AS passed
            FROM question_check_results c JOIN runs r USING (run_id)
            WHERE r.status = 'finished' AND $checks IS NOT NULL GROUP BY c.question_id
        ),
        picked AS MATERIALIZED (
            SELECT q.question_id, q.film_id, q.qtype, q.center, q.status, q.source, q.text,
                   ch.passed AS checks_passed
            FROM questions q LEFT JOIN checked ch USING (question_id)
            WHERE ($film IS NULL OR q.film_id = $film) {films}
              AND ($checks IS NULL OR ($checks = 'passed' AND ch.passed)
                   OR ($checks = 'failed' AND NOT ch.passed)
                   OR ($checks = 'unchecked' AND ch.passed IS NULL))
              AND (len($qtypes) = 0 OR list_contains($qtypes, q.qtype))
              AND (len($centers) = 0 OR list_contains($centers, q.center))
              AND (len($statuses) = 0 OR list_contains($statuses, q.status))
              AND (len($sources) = 0 OR list_contains($sources, q.source))
              AND ($run IS NULL OR q.run_id = $run)
            ORDER BY q.film_id, q.question_id LIMIT $limit
        ),
        {sizes}
        SELECT p.question_id, p.film_id, f.title, p.qtype, p.center, p.status, p.source, p.text,
               coalesce(c.claims, 0) AS claims, coalesce(c.core, 0) AS core,
               coalesce(ev.evidence_scenes, 0) AS evidence_scenes, round(ev.span_min) AS span_min,
               p.checks_passed
        FROM picked p LEFT JOIN films f USING (film_id) LEFT JOIN claims c USING (question_id)
        LEFT JOIN ev USING (question_id)
        ORDER BY p.film_id, p.question_id
"""


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
        "SELECT claim_id, ord, role, text,"
        " array_to_string(evidence_scenes, ', ') AS evidence_scenes"
        " FROM rubric_claims WHERE question_id = ? ORDER BY ord",
        [question_id],
    )


def evidence_map(store: Store, question_id: str) -> pd.DataFrame:
    """Evidence points of a question: time, location, scene, claim numbers, anchor flag."""
    return store.df(
        """
        SELECT e.ord, e.time_s, s.end_s AS scene_end_s,
               coalesce(e.location, s.location, s.heading) AS location, e.scene_index,
               coalesce(e.claim_ords, []) AS claim_ords, coalesce(e.is_anchor, false) AS is_anchor
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
