"""Human review as a yardstick: each judge against each human reviewer (Cohen's κ per
claim role and question type, as LF-VideoQA App. G reports judge–human agreement), and how well
the automatic question checks predict the reviewers' accept / reject decisions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.agreement.stats import cohen_kappa
from pipelines.verdict_metrics import kappa_pairs

_KAPPA_COLUMNS = ["judge", "human", "by", "group", "items", "agreement", "kappa"]


def _pairs_of(part: pd.DataFrame, by: str, group: str) -> list[dict]:
    table = (
        part.groupby(["judge_id", "human", "judge_verdict", "human_verdict"], as_index=False)["n"]
        .sum()
        .rename(
            columns={
                "judge_id": "judge_a",
                "human": "judge_b",
                "judge_verdict": "verdict_a",
                "human_verdict": "verdict_b",
            }
        )
    )
    pairs = kappa_pairs(table)
    return [
        {
            "judge": row.judge_a,
            "human": row.judge_b,
            "by": by,
            "group": group,
            "items": row.items,
            "agreement": row.agreement,
            "kappa": row.kappa,
        }
        for row in pairs.itertuples()
    ]


def human_kappas(confusions: pd.DataFrame) -> pd.DataFrame:
    """κ and raw agreement of every judge against every human: overall, per claim role, per type.

    Args:
        confusions: `review_view.human_confusions` rows (judge_id, human, role, qtype,
            judge_verdict, human_verdict, n).

    Returns:
        Columns judge, human, by (all | role | type), group, items, agreement, kappa. κ is NaN
        where only one verdict occurs (it is undefined there).
    """
    if confusions.empty:
        return pd.DataFrame(columns=_KAPPA_COLUMNS)
    rows = _pairs_of(confusions, "all", "all")
    for column, by in (("role", "role"), ("qtype", "type")):
        for group, part in confusions.groupby(column, sort=True):
            rows += _pairs_of(part, by, str(group))
    return pd.DataFrame(rows, columns=_KAPPA_COLUMNS)


def check_prediction(decided: pd.DataFrame) -> dict:
    """How well "the automatic checks failed" predicts "a reviewer rejected the question".

    Args:
        decided: `review_view.checks_and_decisions` rows (passed, decision).

    Returns:
        n, the confusion counts (tp: failed & rejected, fp: failed & accepted, fn: passed &
        rejected, tn: passed & accepted), precision, recall, accuracy and Cohen's κ (NaN when
        undefined).
    """
    predicted = ~decided["passed"].astype(bool).to_numpy()
    actual = (decided["decision"] == "reject").to_numpy()
    tp = int((predicted & actual).sum())
    fp = int((predicted & ~actual).sum())
    fn = int((~predicted & actual).sum())
    tn = int((~predicted & ~actual).sum())
    n = tp + fp + fn + tn
    both_kinds = len(set(predicted)) > 1 or len(set(actual)) > 1
    kappa = float(cohen_kappa(list(actual), list(predicted))) if n and both_kinds else float("nan")
    return {
        "n": n,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / (tp + fn) if tp + fn else float("nan"),
        "accuracy": (tp + tn) / n if n else float("nan"),
        "kappa": kappa,
    }


def per_check_rejections(decided: pd.DataFrame) -> pd.DataFrame:
    """Per failed check: `questions` that failed it, how many a reviewer rejected, and the share
    (the check's precision as a reject predictor); plus a `(passed all)` row."""
    rows = []
    exploded = decided.explode("failed_checks").dropna(subset=["failed_checks"])
    for check, part in exploded.groupby("failed_checks", sort=True):
        rejected = int((part["decision"] == "reject").sum())
        rows.append({"check": check, "questions": len(part), "rejected": rejected})
    passed = decided[decided["passed"].astype(bool)]
    rows.append(
        {
            "check": "(passed all)",
            "questions": len(passed),
            "rejected": int((passed["decision"] == "reject").sum()),
        }
    )
    out = pd.DataFrame(rows)
    out["reject_share"] = np.where(
        out["questions"] > 0, out["rejected"] / out["questions"].clip(lower=1), np.nan
    )
    return out
