"""A judge's per-claim labels against the gold verdicts: Cohen's κ, accuracy and the
confusion table (gold label -> judged label -> count), over every claim of every answer the gold
judge labelled. A claim the judge never labelled counts as "unjudged" in the confusion table and
is left out of κ and accuracy (they describe the labels the judge gave)."""

from __future__ import annotations

import pandas as pd

from pipelines.agreement.stats import cohen_kappa


def score_judge(pairs: pd.DataFrame) -> dict:
    """kappa, accuracy and confusion from `queries.gold_eval_inputs.verdict_pairs` rows."""
    judged = pairs[pairs["judged"].notna()]
    confusion: dict[str, dict[str, int]] = {}
    for gold, label in zip(pairs["gold"], pairs["judged"].fillna("unjudged")):
        confusion.setdefault(gold, {}).setdefault(label, 0)
        confusion[gold][label] += 1
    kappa = cohen_kappa(judged["gold"].tolist(), judged["judged"].tolist())
    accuracy = float((judged["gold"] == judged["judged"]).mean()) if len(judged) else None
    return {
        "kappa": None if kappa != kappa else round(kappa, 4),
        "accuracy": None if accuracy is None else round(accuracy, 4),
        "confusion": confusion,
        "n_claims": len(pairs),
        "n_judged": len(judged),
    }
