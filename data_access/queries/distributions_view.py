"""Queries of the Distributions page. Everything is aggregated in the store (histogram buckets,
topic counts, accuracy per bin), so a paper-scale store (6k questions, 363k MCQs, millions of
predictions) sends the page a few hundred rows, never the tables themselves."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from data_access.queries import histogram_bins
from data_access.queries.histogram_bins import FIND_BIN_EPSILON
from data_access.rollups import source as rollup_source
from data_access.rollups.questions import COUNTED_MEASURES
from data_access.store import Store

DIFFICULTY_MEASURES = ("d_q", "d_a", "d_qa", "d")
HISTOGRAM_BUCKETS = 40
REVIEW_SAMPLE = 20000


SPAN_BINS = 30  # the evidence-span histogram's nbinsx: plotly.js picks the bins (histogram_bins)
SHAPE_MEASURES = COUNTED_MEASURES  # qtype, claims, cited_scenes, anchor_fifth


@dataclass(frozen=True)
class QuestionShape:
    """What the Distributions page shows of the LF-VideoQA questions of one film or all: counts
    and bins, a few dozen rows at any store size (the page drew them from one row per
    question, 63k at ten times the paper)."""

    questions: int
    mean_claims: float | None
    mean_cited_scenes: float | None
    mean_span_min: float | None  # over the questions with a span
    counts: pd.DataFrame  # measure (SHAPE_MEASURES), value, n: questions per value
    span_bins: pd.DataFrame  # left_edge, right_edge, n: plotly.js's bins of the spans

    def value_counts(self, measure: str) -> pd.Series:
        """Questions per value of `measure` (as `Series.value_counts` of its column, NULLs
        left out), indexed by value."""
        rows = self.counts[self.counts["measure"] == measure]
        return pd.Series(list(rows["n"]), index=list(rows["value"]), name="n", dtype="int64")


def question_shape(store: Store, film_id: str | None = None) -> QuestionShape:
    """Counts of the question shape (type, claims, cited scenes, evidence span, the fifth of the
    runtime the anchor falls in) of one film's questions, or all.

    The counts are read from the question counts rollup and the spans from the question-shape
    rollup (data_access.rollups.questions, through data_access.rollups.source)."""
    counted, shapes = rollup_source.sources(
        store, "rollup_question_counts", "rollup_question_shape"
    )
    with store.session() as cursor:
        counts = cursor.execute(
            f"SELECT measure, value, n FROM {counted}"
            " WHERE film_id IS NOT DISTINCT FROM ? AND measure <> 'centers'",
            [film_id],
        ).fetchall()
        return _counted_shape(cursor, shapes, film_id, counts)


def _counted_shape(cursor, source: str, film_id: str | None, counts: list[tuple]) -> QuestionShape:
    """The question shape from (measure, value, n) counts and the spans in `source`."""
    typed = sorted(
        (measure, value if measure == "qtype" else int(value), n) for measure, value, n in counts
    )
    frame = pd.DataFrame(typed, columns=["measure", "value", "n"]).astype({"value": object})
    frame = frame.sort_values("measure", key=lambda m: m.map(SHAPE_MEASURES.index), kind="stable")
    frame = frame.reset_index(drop=True)

    def mean(measure: str) -> float | None:
        rows = [(value, n) for m, value, n in typed if m == measure]
        total = sum(n for _, n in rows)
        return sum(value * n for value, n in rows) / total if total else None

    where = f"FROM {source} WHERE ($film IS NULL OR film_id = $film) AND span_min IS NOT NULL"
    film = {"film": film_id}
    span_mean, *span_stats = cursor.execute(
        "SELECT avg(span_min), count(*), count(*) FILTER (fmod(span_min, 1) = 0),"
        f" min(span_min), max(span_min) {where}",
        film,
    ).fetchall()[0]
    return QuestionShape(
        questions=sum(n for m, _, n in typed if m == "claims"),  # every question has a count
        mean_claims=mean("claims"),
        mean_cited_scenes=mean("cited_scenes"),
        mean_span_min=span_mean,
        counts=frame,
        span_bins=_span_bins(cursor, where, film, *span_stats),
    )


def _span_bins(
    cursor, where: str, film: dict, values: int, integers: int, low, high
) -> pd.DataFrame:
    """The spans counted in the bins plotly.js would pick for them (nbinsx = SPAN_BINS)."""
    if not values:
        return pd.DataFrame({"left_edge": [], "right_edge": [], "n": []})
    start, size = histogram_bins.first_bins(low, high, SPAN_BINS)
    near_edge, near_middle = cursor.execute(
        "SELECT count(*) FILTER (fmod(1 + (span_min - $start) * 100 / $size, 100) < 2),"
        " count(*) FILTER (fmod(1 + (span_min + $size / 2 - $start) * 100 / $size, 100) < 2)"
        f" {where}",
        {**film, "start": start, "size": size},
    ).fetchall()[0]
    counts = histogram_bins.EdgeCounts(values, integers, near_edge, near_middle)
    bins = histogram_bins.shifted_bins(start, size, low, high, counts)
    per_bin = dict(
        cursor.execute(
            "SELECT floor((span_min - $start) / $size + $epsilon)::BIGINT AS bin, count(*)"
            f" {where} GROUP BY bin",
            {**film, "start": bins.start, "size": bins.size, "epsilon": FIND_BIN_EPSILON},
        ).fetchall()
    )
    shown = [b for b in per_bin if 0 <= b < bins.count]
    edges = bins.edges()
    # plotly.js draws the bins from the first to the last non-empty one
    kept = range(min(shown), max(shown) + 1) if shown else range(0)
    return pd.DataFrame(
        {
            "left_edge": [edges[b] for b in kept],
            "right_edge": [edges[b + 1] for b in kept],
            "n": [per_bin.get(b, 0) for b in kept],
        }
    )


def centers_per_film(store: Store) -> pd.DataFrame:
    """Films per number of distinct center characters (the paper: a median of 15.5 per film,
    §1), and that median: centers, films, median_centers."""
    # the question counts rollup: a few dozen rows
    films = store.rows(
        f"SELECT value::BIGINT, n FROM {rollup_source.source(store, 'rollup_question_counts')}"
        " WHERE film_id IS NULL AND measure = 'centers' ORDER BY 1"
    )
    frame = pd.DataFrame(films, columns=["centers", "films"])
    median = frame["centers"].repeat(frame["films"]).median()  # over films, as before
    return frame.assign(median_centers=median)


def mcq_facets(store: Store) -> pd.DataFrame:
    """MCQ sets and sources with sizes (filters)."""
    # the catalogue rollup: a few rows at any size
    return store.df(
        "SELECT set_name, source, questions AS n"
        f" FROM {rollup_source.source(store, 'rollup_mcq_sets')} ORDER BY 1, 2"
    )


def mcq_topic_counts(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """Questions per (question_type, story_element)."""
    return store.df(  # the catalogue rollup
        "SELECT question_type, story_element, sum(n)::BIGINT AS n"
        f" FROM {rollup_source.source(store, 'rollup_mcq_topics')}"
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
            SELECT cd.d_q, cd.d_a, cd.d_qa, cd.d
            FROM current_mcq_difficulty cd JOIN mcq_questions q USING (mcq_id)
            WHERE (? IS NULL OR q.set_name = ?) AND (? IS NULL OR q.source = ?)
        ),
        long AS (UNPIVOT d ON d_q, d_a, d_qa, d INTO NAME measure VALUE value),
        bounds AS (SELECT measure, min(value) AS lo,
                          greatest(max(value) - min(value), 1e-9) AS width
                   FROM long GROUP BY measure)
        SELECT l.measure,
               b.lo + b.width * least(floor((l.value - b.lo) / b.width * ?), ? - 1) / ?
                   AS left_edge,
               b.width / ? AS bucket_width, count(*) AS n
        FROM long l JOIN bounds b USING (measure) WHERE l.value IS NOT NULL
        GROUP BY ALL ORDER BY l.measure, left_edge
        """,
        [set_name, set_name, source, source, buckets, buckets, buckets, buckets],
    )


# A slice of the MCQ accuracy rollup (data_access.rollups.sql): MCQ set and source (None: any).
_MCQ_SLICE = "(? IS NULL OR set_name = ?) AND (? IS NULL OR source = ?)"


def accuracy_by_bin(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """Percent correct per method and difficulty bin (StoryVideoQA Figure 20 layout)."""
    return store.df(
        "SELECT method, bin, 100.0 * sum(n_correct) / nullif(sum(n_scored), 0) AS accuracy,"
        f" sum(n)::BIGINT AS n FROM {rollup_source.source(store, 'rollup_mcq_accuracy')}"
        f" WHERE {_MCQ_SLICE} AND bin IS NOT NULL GROUP BY ALL ORDER BY method, bin",
        [set_name, set_name, source, source],
    )


def accuracy_by_topic(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """Percent correct per method and topic (question_type, story_element)."""
    return store.df(
        "SELECT method, question_type, story_element,"
        " 100.0 * sum(n_correct) / nullif(sum(n_scored), 0) AS accuracy, sum(n)::BIGINT AS n"
        f" FROM {rollup_source.source(store, 'rollup_mcq_accuracy')}"
        f" WHERE {_MCQ_SLICE} GROUP BY ALL ORDER BY method",
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
        SELECT mcq_id, source, gt, choices, gemini_check, claude_check, gpt_check
        FROM mcq_questions
        WHERE (? IS NULL OR set_name = ?) AND (? IS NULL OR source = ?)
          AND gemini_check IS NOT NULL AND claude_check IS NOT NULL AND gpt_check IS NOT NULL
        USING SAMPLE reservoir({int(sample)} ROWS) REPEATABLE (7)
        """,
        [set_name, set_name, source, source],
    )
