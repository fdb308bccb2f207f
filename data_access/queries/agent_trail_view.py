"""The agents' evidence trail (m1100: `agent_steps`, `agent_answers`) beside where the answer
was (the question's evidence scenes), for the Verdicts panel, `storyscope metrics` and the
`agent-trail` export.

One SQL per view: `TRAIL_ANSWERS_SQL` (one row per agent question: how the loop ended, what it
spent, every interval it touched, the question's evidence spans) is what the panel's per-setting
table, the metrics CLI and the export all read, so they agree by construction; the measures
over it (share of evidence scenes touched, temporal IoU) are computed in
`pipelines.metrics.trail`. Recall per answer comes from the Eq. 1 inputs the project already
keeps (`data_access.queries.verdict_counts`, through the rollup source).
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store

# The question's evidence scenes with their spans in film seconds: the evidence rows that cite
# at least one rubric claim (the "cited scenes" of LF-VideoQA Table 1, as the question-shape
# rollup counts them), one row per scene. A scene's span is its stored time span in the film's
# current scenes; an evidence row whose scene has no times is the single time it records
# (`question_evidence.time_s`, zero length). Rows with neither are left out (no place to show).
EVIDENCE_SCENES_SQL = """
    SELECT e.question_id, any_value(q.film_id) AS film_id,
           any_value(e.scene_index) AS scene_index,
           any_value(coalesce(e.location, s.location, s.heading)) AS location,
           min(coalesce(s.start_s, e.time_s)) AS start_s,
           max(greatest(coalesce(s.end_s, e.time_s), coalesce(s.start_s, e.time_s))) AS end_s,
           list_sort(list_distinct(flatten(list(e.claim_ords)))) AS claim_ords,
           bool_or(coalesce(e.is_anchor, false)) AS is_anchor
    FROM question_evidence e JOIN questions q USING (question_id)
    LEFT JOIN current_scenes s ON s.film_id = q.film_id AND s.scene_index = e.scene_index
    WHERE len(coalesce(e.claim_ords, [])) > 0 AND coalesce(s.start_s, e.time_s) IS NOT NULL
    GROUP BY e.question_id, coalesce(e.scene_index, -1 - e.ord)
"""

# One row per (agent run, question), answered or not: the loop's outcome and spend, the calls
# that failed, every interval its tool calls touched (in call order) and the question's
# evidence spans (start order). `run_id` names the run that wrote the trail.
TRAIL_ANSWERS_SQL = f"""
    WITH steps AS (
        SELECT run_id, question_id,
               flatten(list(intervals::DOUBLE[][] ORDER BY turn, call_index)) AS touched,
               count(*) FILTER (error IS NOT NULL) AS bad_calls
        FROM agent_steps GROUP BY run_id, question_id
    ),
    spans AS (
        SELECT question_id, list([start_s, end_s] ORDER BY start_s, scene_index) AS evidence_spans
        FROM ({EVIDENCE_SCENES_SQL}) GROUP BY question_id
    )
    SELECT a.run_id, a.setting_id, coalesce(s.label, a.setting_id) AS setting_label, a.tier,
           a.question_id, q.film_id, q.qtype, a.answer_id, a.outcome, a.turns, a.tool_calls,
           coalesce(st.bad_calls, 0) AS bad_calls, a.prompt_tokens, a.completion_tokens,
           a.tool_mode, a.failure, coalesce(st.touched, []) AS touched,
           coalesce(sp.evidence_spans, []) AS evidence_spans
    FROM agent_answers a LEFT JOIN settings s ON s.setting_id = a.setting_id
    LEFT JOIN questions q ON q.question_id = a.question_id
    LEFT JOIN steps st ON st.run_id = a.run_id AND st.question_id = a.question_id
    LEFT JOIN spans sp ON sp.question_id = a.question_id
"""


def trail_answers(
    store: Store, film_id: str | None = None, question_id: str | None = None
) -> pd.DataFrame:
    """`TRAIL_ANSWERS_SQL`'s rows (of one film, or one question, or all), by setting, question
    and run."""
    return store.df(
        f"SELECT * FROM ({TRAIL_ANSWERS_SQL})"
        " WHERE ($film IS NULL OR film_id = $film)"
        " AND ($question IS NULL OR question_id = $question)"
        " ORDER BY setting_id, question_id, run_id",
        {"film": film_id, "question": question_id},
    )


def trail_steps(store: Store, question_id: str) -> pd.DataFrame:
    """Every tool call agents made on one question: run, setting, turn, call, tool, its
    arguments (JSON text, as the model passed them), the intervals it touched, what the model
    got back (size, bounded text) and its error, in call order."""
    return store.df(
        "SELECT run_id, setting_id, turn, call_index, tool, arguments::VARCHAR AS arguments,"
        " intervals::DOUBLE[][] AS intervals, result_chars, result_text, error"
        " FROM agent_steps WHERE question_id = ? ORDER BY run_id, turn, call_index",
        [question_id],
    )


def evidence_scenes(store: Store, question_id: str) -> pd.DataFrame:
    """The question's evidence scenes (`EVIDENCE_SCENES_SQL`) in film order."""
    return store.df(
        f"SELECT * EXCLUDE (question_id, film_id) FROM ({EVIDENCE_SCENES_SQL})"
        " WHERE question_id = ? ORDER BY start_s, scene_index",
        [question_id],
    )


def agent_settings(store: Store) -> pd.DataFrame:
    """Agent settings (source 'agent', or any setting with a recorded trail): id, label, tier
    and how many questions have a recorded trail (0: answers imported without one)."""
    return store.df(
        """
        WITH ids AS (SELECT setting_id FROM settings WHERE source = 'agent'
                     UNION SELECT setting_id FROM agent_answers),
        trails AS (SELECT setting_id, any_value(tier) AS tier, count(*) AS trail_questions
                   FROM agent_answers GROUP BY setting_id)
        SELECT i.setting_id, coalesce(s.label, i.setting_id) AS label,
               coalesce(s.tier, t.tier) AS tier, coalesce(t.trail_questions, 0) AS trail_questions
        FROM ids i LEFT JOIN settings s USING (setting_id) LEFT JOIN trails t USING (setting_id)
        ORDER BY i.setting_id
        """
    )
