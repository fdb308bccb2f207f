"""Labels for judge agreement: imported judge datasets (StorySumm, FABLES) and LF-VideoQA judges.

Imported labels live in `claim_verdicts` like any judge's, one run per (dataset, judge) whose
params name the dataset (`{"dataset": "storysumm", ...}`); agreement reads each judge's latest
finished run of that dataset. The dataset `lfvqa` means the current verdicts on model answers.
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store

LFVQA = "lfvqa"


def labelled_datasets(store: Store) -> list[str]:
    """Datasets with imported judge labels (plus `lfvqa` when answers have verdicts)."""
    rows = store.rows(
        "SELECT DISTINCT json_extract_string(params, '$.dataset') AS d FROM runs"
        " WHERE status = 'finished' AND json_extract_string(params, '$.dataset') IS NOT NULL"
        " AND run_id IN (SELECT DISTINCT run_id FROM claim_verdicts) ORDER BY d"
    )
    names = [row[0] for row in rows]
    has_lfvqa = store.scalar(
        "SELECT count(*) FROM current_claim_verdicts v JOIN answers a USING (answer_id)"
    )
    return ([LFVQA] if has_lfvqa else []) + names


def dataset_labels(store: Store, dataset: str) -> pd.DataFrame:
    """Long frame (item_id, judge_id, verdict) of one dataset's labels."""
    if dataset == LFVQA:
        return store.df(
            "SELECT v.answer_id || '|' || v.claim_id AS item_id, v.judge_id, v.verdict"
            " FROM current_claim_verdicts v JOIN answers a USING (answer_id)"
        )
    return store.df(
        """
        WITH dataset_runs AS (
            SELECT r.run_id, v.judge_id, r.started_at
            FROM runs r JOIN (SELECT DISTINCT run_id, judge_id FROM claim_verdicts) v
                USING (run_id)
            WHERE r.status = 'finished' AND json_extract_string(r.params, '$.dataset') = ?
        ),
        latest AS (SELECT judge_id, arg_max(run_id, started_at) AS run_id
                   FROM dataset_runs GROUP BY judge_id)
        SELECT v.answer_id || '|' || v.claim_id AS item_id, v.judge_id, v.verdict
        FROM claim_verdicts v JOIN latest USING (judge_id, run_id)
        """,
        [dataset],
    )
