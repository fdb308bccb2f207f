"""Queries of the Distributions page. Everything is aggregated in the store (histogram buckets,
topic counts, accuracy per bin), so a paper-scale store (6k questions, 363k MCQs, millions of
predictions) sends the page a few hundred rows, never the tables themselves."""

from __future__ import annotations

import pandas as pd

from data_access.rollups import full as rollups
from data_access.rollups.questions import SHAPE_SQL
from data_access.store import Store

DIFFICULTY_MEASURES = ("d_q", "d_a", "d_qa", "d")
HISTOGRAM_BUCKETS = 40
REVIEW_SAMPLE = 20000


def question_shape(store: Store, film_id: str | None = None) -> pd.DataFrame:
    """One row per LF-VideoQA question: type, claims, core claims, cited scenes, evidence span
    (min) and the fifth of the runtime its anchor falls in (1–5). No ids: the page counts and
    bins the rows, and leaving the id columns out reads a third of the bytes (63k questions at
    ten times the paper)."""
    columns = "qtype, claims, core, cited_scenes, span_min, anchor_fifth"
    if rollups.rollups_fresh(store):  # one row per question (data_access.rollups.questions)
        table = "rollup_question_shape WHERE ? IS NULL OR film_id = ?"
    else:
        table = f"({SHAPE_SQL.format(questions='? IS NULL OR film_id = ?')})"
    return store.df(f"SELECT {columns} FROM {table}", [film_id, film_id])


def centers_per_film(store: Store) -> pd.DataFrame:
    """Distinct center characters per film (the paper: a median of 15.5 per film, §1)."""
    # the question-shape rollup while fresh holds every question's film and center (63k
    # questions' rows grouped live otherwise at ten times the paper)
    table = "rollup_question_shape" if rollups.rollups_fresh(store) else "questions"
    return store.df(
        "SELECT q.film_id, f.title, count(DISTINCT q.center) AS centers, count(*) AS questions"
        f" FROM {table} q LEFT JOIN films f USING (film_id) GROUP BY ALL ORDER BY centers DESC"
    )


def mcq_facets(store: Store) -> pd.DataFrame:
    """MCQ sets and sources with sizes (filters)."""
    if rollups.rollups_fresh(store):  # the catalogue rollup: a few rows at any size
        return store.df(
            "SELECT set_name, source, questions AS n FROM rollup_mcq_sets ORDER BY 1, 2"
        )
    return store.df(
        "SELECT set_name, source, count(*) AS n FROM mcq_questions GROUP BY ALL ORDER BY 1, 2"
    )


def mcq_topic_counts(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """Questions per (question_type, story_element)."""
    fresh = rollups.rollups_fresh(store)
    counted = "sum(n)::BIGINT" if fresh else "count(*)"
    table = "rollup_mcq_topics" if fresh else "mcq_questions"  # the catalogue rollup, or live
    return store.df(
        f"SELECT question_type, story_element, {counted} AS n FROM {table}"
        " WHERE (? IS NULL OR set_name = ?) AND (? IS NULL OR source = ?) GROUP BY ALL",
        [set_name, set_name, source, source],
    )


def difficulty_histograms(
    store: Store,
    set_name: str | None = None,
    source: str | None = None,
    buckets: int = HISTOGRAM_BUCKETS,
) -> pd.DataFrame:
    """Histogram buckets of D_q, D_a, D_qa and D (StoryVideoQA §4): measure, left edge, count."""
    return store.df(
        """
        WITH d AS (
            SELECT cd.d_q, cd.d_a, cd.d_qa, cd.d FROM current_mcq_difficulty cd JOIN
                mcq_questions q
                USING (mcq_id)
            WHERE (? IS NULL OR q.set_name = ?) AND (? IS NULL OR q.source = ?)
        ),
        long AS (UNPIVOT d ON d_q, d_a, d_qa, d INTO NAME measure VALUE value),
        bounds AS (SELECT measure, min(value) AS lo, greatest(max(value) - min(value), 1e-9) AS
            width
                   FROM long GROUP BY measure)
        SELECT l.measure,
               b.lo + b.width * least(floor((l.value - b.lo) / b.width * ?), ? - 1) / ? AS
                   left_edge,
               b.width / ? AS bucket_width, count(*) AS n
        FROM long l JOIN bounds b USING (measure) WHERE l.value IS NOT NULL
        GROUP BY ALL ORDER BY l.measure, left_edge
        """,
        [set_name, set_name, source, source, buckets, buckets, buckets, buckets],
    )


def _latest_prediction_runs_sql() -> str:
    # the latest finished prediction run per method (a rerun of a method supersedes it whole)
    return """
        latest AS (
            SELECT p.method, arg_max(p.run_id, r.started_at) AS run_id
            FROM (SELECT DISTINCT method, run_id FROM mcq_predictions) p JOIN runs r USING
                (run_id)
            WHERE r.status = 'finished' GROUP BY p.method
        )"""


def accuracy_by_bin(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """Percent correct per method and difficulty bin (StoryVideoQA Figure 20 layout)."""
    if rollups.rollups_fresh(store):
        return store.df(
            "SELECT method, bin, 100.0 * sum(n_correct) / nullif(sum(n_scored), 0) AS accuracy, "
            ""
            "sum(n)::BIGINT AS n"
            " FROM rollup_mcq_accuracy WHERE (? IS NULL OR set_name = ?) AND (? IS NULL OR "
            "source = "
            "?)"
            " AND bin IS NOT NULL GROUP BY ALL ORDER BY method, bin",
            [set_name, set_name, source, source],
        )
    return store.df(
        f"""
        WITH {_latest_prediction_runs_sql()}
        SELECT p.method, d.bin, 100.0 * avg(p.correct::INT) AS accuracy, count(*) AS n
        FROM mcq_predictions p JOIN latest USING (method, run_id)
        JOIN current_mcq_difficulty d USING (mcq_id) JOIN mcq_questions q USING (mcq_id)
        WHERE (? IS NULL OR q.set_name = ?) AND (? IS NULL OR q.source = ?) AND d.bin IS NOT
            NULL
        GROUP BY ALL ORDER BY p.method, d.bin
        """,
        [set_name, set_name, source, source],
    )


def accuracy_by_topic(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """Percent correct per method and topic (question_type, story_element)."""
    if rollups.rollups_fresh(store):
        return store.df(
            "SELECT method, question_type, story_element,"
            " 100.0 * sum(n_correct) / nullif(sum(n_scored), 0) AS accuracy, sum(n)::BIGINT AS "
            "n"
            " FROM rollup_mcq_accuracy WHERE (? IS NULL OR set_name = ?) AND (? IS NULL OR "
            "source = "
            "?)"
            " GROUP BY ALL ORDER BY method",
            [set_name, set_name, source, source],
        )
    return store.df(
        f"""
        WITH {_latest_prediction_runs_sql()}
        SELECT p.method, q.question_type, q.story_element, 100.0 * avg(p.correct::INT) AS
            accuracy,
               count(*) AS n
        FROM mcq_predictions p JOIN latest USING (method, run_id) JOIN mcq_questions q USING
            (mcq_id)
        WHERE (? IS NULL OR q.set_name = ?) AND (? IS NULL OR q.source = ?)
        GROUP BY ALL ORDER BY p.method
        """,
        [set_name, set_name, source, source],
    )


def review_checks(
    store: Store,
    set_name: str | None = None,
    source: str | None = None,
    sample: int = REVIEW_SAMPLE,
) -> pd.DataFrame:
    """The three reviewers' recorded checks (StoryVideoQA §3.3), at most `sample` questions
    (a repeatable reservoir sample on big sets)."""
    return store.df(
        f"""
        SELECT mcq_id, source, gt, choices, gemini_check, claude_check, gpt_check FROM
            mcq_questions
        WHERE (? IS NULL OR set_name = ?) AND (? IS NULL OR source = ?)
          AND gemini_check IS NOT NULL AND claude_check IS NOT NULL AND gpt_check IS NOT NULL
        USING SAMPLE reservoir({int(sample)} ROWS) REPEATABLE (7)
        """,
        [set_name, set_name, source, source],
    )
