"""Per-answer claim counts under one judge: the inputs of Eq. 1 (LF-VideoQA §3.3).

For each model answer judged by `judge_id` (current verdicts, m0002), one row with
|K| (rubric claims), |C| (core claims), |A ∩ C|, |A|, |X| and how many claims were judged: the
rows of `rollup_answer_verdicts` (data_access.rollups.sql), read through
`data_access.rollups.source` like the Verdicts page and the `metrics` export read them.
"""

from __future__ import annotations

import pandas as pd

from data_access.rollups.source import source
from data_access.store import Store


def verdict_counts(store: Store, judge_id: str) -> pd.DataFrame:
    """One row per answer the judge graded (model answers only, not gold self-checks)."""
    # the one definition of the Eq. 1 inputs (data_access.rollups.sql), as the page reads it
    return store.df(
        f"SELECT * EXCLUDE (judge_id) FROM {source(store, 'rollup_answer_verdicts')}"
        " WHERE judge_id = ? ORDER BY setting_id, question_id, answer_id",
        [judge_id],
    )


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
