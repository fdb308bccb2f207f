"""Per-answer claim counts under one judge: the inputs of Eq. 1 (LF-VideoQA §3.3).

For each model answer judged by `judge_id` (current verdicts, m0002), one row with
|K| (rubric claims), |C| (core claims), |A ∩ C|, |A|, |X| and how many claims were judged.
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store

_COUNTS_SQL = """
WITH rubric AS (
    SELECT question_id, count(*) AS n_claims, count(*) FILTER (role = 'core') AS n_core
    FROM rubric_claims GROUP BY question_id
),
judged AS (
    SELECT v.answer_id,
        count(*) AS n_judged,
        count(*) FILTER (v.verdict = 'asserted') AS n_asserted,
        count(*) FILTER (v.verdict = 'contradicted') AS n_contradicted,
        count(*) FILTER (v.verdict = 'asserted' AND c.role = 'core') AS n_core_asserted
    FROM current_claim_verdicts v JOIN rubric_claims c USING (claim_id)
    WHERE v.judge_id = ?
    GROUP BY v.answer_id
)
SELECT a.answer_id, a.question_id, a.setting_id, coalesce(s.label, a.setting_id) AS setting_label,
    q.qtype, q.film_id, r.n_claims, r.n_core, j.n_judged, j.n_asserted, j.n_contradicted,
    j.n_core_asserted
FROM judged j
JOIN answers a USING (answer_id)
JOIN questions q ON q.question_id = a.question_id
JOIN rubric r ON r.question_id = a.question_id
LEFT JOIN settings s ON s.setting_id = a.setting_id
ORDER BY a.setting_id, a.question_id, a.answer_id
"""


def verdict_counts(store: Store, judge_id: str) -> pd.DataFrame:
    """One row per answer the judge graded (model answers only, not gold self-checks)."""
    return store.df(_COUNTS_SQL, [judge_id])


def judges_with_answer_verdicts(store: Store) -> list[str]:
    """Judges that have current verdicts on model answers, most verdicts first."""
    rows = store.rows(
        "SELECT v.judge_id, count(*) AS n FROM current_claim_verdicts v"
        " JOIN answers a USING (answer_id) GROUP BY v.judge_id ORDER BY n DESC, v.judge_id"
    )
    return [row[0] for row in rows]


def lexical_means(store: Store, judge_id: str) -> pd.DataFrame:
    """Per-answer lexical measures of the judge's latest finished run that has them."""
    return store.df(
        "SELECT l.answer_id, arg_max(l.rl, r.started_at) AS rl,"
        " arg_max(l.clm_rl, r.started_at) AS clm_rl, arg_max(l.cov50, r.started_at) AS cov50,"
        " arg_max(l.hedge, r.started_at) AS hedge"
        " FROM lexical_scores l JOIN runs r USING (run_id) WHERE r.status = 'finished'"
        " AND l.run_id IN (SELECT DISTINCT run_id FROM claim_verdicts WHERE judge_id = ?)"
        " GROUP BY l.answer_id",
        [judge_id],
    )
