"""Question-shape rollup (migration 972): per question what the Distributions page draws (type,
center, rubric and core claims, cited scenes, evidence span, the fifth of the runtime its anchor
falls in) and what the Questions page lists beside each question (claims, cited scenes, span).

Computed live, each view resolved every film's current scenes and grouped every question's
evidence and rubric (0.9 s at ten times the paper, issue 30); the table holds one row per
question, so a page reads it instead.

Refreshed whole with the other rollups, and by a finished run for the questions it can change:
the questions, rubric claims and evidence it wrote, and every question of a film whose scenes
(the span's scene ends: `current_scenes` picks each film's latest finished scene run) or film
row (the runtime of the anchor fifth) it wrote. Readers use it only while
`rollups.rollups_fresh` holds, like every rollup, and otherwise run `SHAPE_SQL` live.
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
    """Recompute every question's row inside the caller's transaction."""
    cursor.execute("DELETE FROM rollup_question_shape")
    cursor.execute(
        f"INSERT INTO rollup_question_shape BY NAME {SHAPE_SQL.format(questions='TRUE')}"
    )


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
    cursor.execute("DROP TABLE _rollup_shape_questions")
