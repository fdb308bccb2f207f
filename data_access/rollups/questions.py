"""Question-shape rollup (migration 972): per question what the Distributions page draws (type,
center, rubric and core claims, cited scenes, evidence span, the fifth of the runtime its anchor
falls in) and what the Questions page lists beside each question (claims, cited scenes, span).
Counted from it (migration 973): per film and for all films, the questions per value of the
type, claims, cited scenes and anchor fifth, and each film's distinct centers, so the
Distributions page reads a few dozen rows where it grouped one per question.

Computed live, each view resolved every film's current scenes and grouped every question's
evidence and rubric (0.9 s at ten times the paper); the table holds one row per
question, so a page reads it instead.

Refreshed whole with the other rollups, and by a finished run for the questions it can change:
the questions, rubric claims and evidence it wrote, and every question of a film whose scenes
(the span's scene ends: `current_scenes` picks each film's latest finished scene run) or film
row (the runtime of the anchor fifth) it wrote. Readers read it through
`data_access.rollups.source`, which gives `SHAPE_SQL` (and `COUNTS_LIVE_SQL`) live while the
rollups are stale.
"""

from __future__ import annotations

import duckdb

# One row per question in {questions} (a predicate on `questions`). The span as LF-VideoQA
# Table 1: the earliest cited scene's start to the latest cited scene's end.
SHAPE_SQL = """
    WITH q AS (SELECT question_id, film_id, qtype, center, anchor_time_s FROM questions
               WHERE {questions}),
    c AS (SELECT question_id, count(*) AS claims, count(*) FILTER (role = 'core') AS core
          FROM rubric_claims WHERE question_id IN (SELECT question_id FROM q) GROUP BY 1),
    e AS (SELECT e.question_id,
                 count(*) FILTER (len(coalesce(e.claim_ords, [])) > 0) AS cited_scenes,
                 (max(coalesce(s.end_s, e.time_s)) FILTER (len(coalesce(e.claim_ords, [])) > 0)
                  - min(e.time_s) FILTER (len(coalesce(e.claim_ords, [])) > 0)) / 60.0
                     AS span_min
          FROM question_evidence e JOIN q USING (question_id)
          LEFT JOIN current_scenes s ON s.film_id = q.film_id AND s.scene_index = e.scene_index
          GROUP BY 1)
    SELECT q.question_id, q.film_id, q.qtype, q.center, coalesce(c.claims, 0) AS claims,
           coalesce(c.core, 0) AS core, coalesce(e.cited_scenes, 0) AS cited_scenes, e.span_min,
           CASE WHEN f.runtime_s > 0 AND q.anchor_time_s IS NOT NULL
                THEN least(5, 1 + floor(5 * q.anchor_time_s / f.runtime_s))::INT END
                AS anchor_fifth
    FROM q LEFT JOIN c USING (question_id) LEFT JOIN e USING (question_id)
    LEFT JOIN films f USING (film_id)
"""

# Per film (and, with film_id NULL, for all films): questions per value of each counted measure
# (NULLs left out, as `value_counts`), and the film's distinct centers as one film of that many
# (measure 'centers'). Values are text; the reader gives the numeric measures back their type.
COUNTED_MEASURES = ("qtype", "claims", "cited_scenes", "anchor_fifth")
_COUNTS_SQL = """
    SELECT film_id, measure, value, count(*) AS n FROM (
        UNPIVOT (SELECT film_id, qtype, claims::VARCHAR AS claims,
                        cited_scenes::VARCHAR AS cited_scenes, anchor_fifth::VARCHAR AS anchor_fifth
                 FROM {shape} WHERE {films})
        ON qtype, claims, cited_scenes, anchor_fifth INTO NAME measure VALUE value)
    GROUP BY ALL
    UNION ALL
    SELECT film_id, 'centers', count(DISTINCT center)::VARCHAR, 1 FROM {shape}
    WHERE {films} GROUP BY film_id
"""
# the all-films rows (film_id NULL): the sums of the per-film rows in {per_film}
_ALL_FILMS_SQL = """
    SELECT NULL AS film_id, measure, value, sum(n)::BIGINT AS n FROM {per_film}
    WHERE film_id IS NOT NULL GROUP BY measure, value
"""


def counts_sql(shapes: str) -> str:
    """The rows of rollup_question_counts (per film, and for all films) counted from the
    question shapes in `shapes` (a table or subquery with the columns of SHAPE_SQL)."""
    return f"""
    WITH per_film AS ({_COUNTS_SQL.format(shape=shapes, films="TRUE")})
    SELECT film_id, measure, value, n FROM per_film
    UNION ALL {_ALL_FILMS_SQL.format(per_film="per_film")}
    """


# Every row of rollup_question_counts computed live from the questions (the readers' source while
# the rollups are stale: data_access.rollups.source).
COUNTS_LIVE_SQL = counts_sql(f"({SHAPE_SQL.format(questions='TRUE')})")

# the rollup inputs (rollups._INPUT_TABLES) whose rows change a question's shape
SHAPE_INPUTS = {"questions", "rubric_claims", "question_evidence", "scenes", "films"}

_RUN_QUESTIONS = """
CREATE OR REPLACE TEMP TABLE _rollup_shape_questions AS
SELECT question_id FROM questions WHERE run_id = $run
UNION SELECT question_id FROM rubric_claims WHERE run_id = $run
UNION SELECT question_id FROM question_evidence WHERE run_id = $run
UNION SELECT question_id FROM questions WHERE film_id IN (
    SELECT film_id FROM scenes WHERE run_id = $run
    UNION SELECT film_id FROM films WHERE run_id = $run)
"""
_IN_RUN_QUESTIONS = "question_id IN (SELECT question_id FROM _rollup_shape_questions)"


def refresh_question_shape(cursor: duckdb.DuckDBPyConnection) -> None:
    """Recompute every question's row, and the counts, inside the caller's transaction."""
    cursor.execute("DELETE FROM rollup_question_shape")
    cursor.execute(
        f"INSERT INTO rollup_question_shape BY NAME {SHAPE_SQL.format(questions='TRUE')}"
    )
    cursor.execute("DELETE FROM rollup_question_counts")
    _count_films(cursor, "TRUE")


def _count_films(cursor: duckdb.DuckDBPyConnection, films: str) -> None:
    """Recount the films matching `films` (their rows deleted) and the all-films rows."""
    counts = _COUNTS_SQL.format(shape="rollup_question_shape", films=films)
    cursor.execute(f"INSERT INTO rollup_question_counts {counts}")
    cursor.execute("DELETE FROM rollup_question_counts WHERE film_id IS NULL")
    all_films = _ALL_FILMS_SQL.format(per_film="rollup_question_counts")
    cursor.execute(f"INSERT INTO rollup_question_counts {all_films}")


def refresh_question_shape_for_run(
    cursor: duckdb.DuckDBPyConnection, run_id: str, touched: set[str]
) -> None:
    """After `run_id` changed status: the rows of the questions it can have changed."""
    if not touched & SHAPE_INPUTS:
        return
    cursor.execute(_RUN_QUESTIONS, {"run": run_id})
    cursor.execute(f"DELETE FROM rollup_question_shape WHERE {_IN_RUN_QUESTIONS}")
    cursor.execute(
        f"INSERT INTO rollup_question_shape BY NAME {SHAPE_SQL.format(questions=_IN_RUN_QUESTIONS)}"
    )
    films = f"film_id IN (SELECT film_id FROM questions WHERE {_IN_RUN_QUESTIONS})"
    cursor.execute(f"DELETE FROM rollup_question_counts WHERE {films}")
    _count_films(cursor, films)
    cursor.execute("DROP TABLE _rollup_shape_questions")
