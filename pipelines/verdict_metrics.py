"""Slice metrics and judge agreement for the Verdicts page.

Eq. 1 (LF-VideoQA §3.3) and the question bootstrap are `pipelines.metrics` (the same code as
`storyscope metrics`), so the page and the CLI print the same numbers; this module only feeds
them the page's slice (film, types, settings) and reshapes the rows for the Table 3 / Table 4
layouts. Agreement (Cohen's κ per judge pair, Krippendorff's α) uses scikit-learn and the
`krippendorff` package.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from pipelines.metrics import METRICS, per_question_scores
from pipelines.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from pipelines.metrics.tables import interval_rows


def slice_metrics(counts: pd.DataFrame, by_type: bool = False, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Question means of recall, precision, F1 and contradiction with 95% bootstrap intervals.

    Args:
        counts: `views_verdicts.answer_counts` rows (the `verdict_counts` layout).
        by_type: group by setting × question type (Table 4) instead of setting (Table 3).

    Returns:
        Columns setting_id, setting, qtype, questions, and per metric <m>, <m>_lo, <m>_hi.
    """
    per_question, _ = per_question_scores(counts)
    if per_question.empty:
        return pd.DataFrame()
    keys = ["setting_id", "qtype"] if by_type else ["setting_id"]
    rows = interval_rows(per_question, keys, resamples, np.random.default_rng(seed))
    labels = dict(zip(counts["setting_id"], counts["setting_label"]))
    out = []
    for row in rows:
        flat = {"setting_id": row["setting"], "setting": labels.get(row["setting"], row["setting"]),
                "qtype": row["type"], "questions": row["n"]}
        for metric in METRICS:
            low, high = row[f"{metric}_ci"]
            flat[metric] = np.nan if row[metric] is None else row[metric]
            flat[f"{metric}_lo"] = np.nan if low is None else low
            flat[f"{metric}_hi"] = np.nan if high is None else high
        out.append(flat)
    return pd.DataFrame(out)


def cohen_kappa_pairs(wide: pd.DataFrame, judges: list[str]) -> pd.DataFrame:
    """Cohen's κ and raw agreement for every pair of judges on the items both labelled."""
    from sklearn.metrics import cohen_kappa_score

    rows = []
    for a, b in itertools.combinations(judges, 2):
        both = wide[[a, b]].dropna()
        kappa = float(cohen_kappa_score(both[a], both[b])) if len(both) >= 2 else float("nan")
        rows.append({"judge_a": a, "judge_b": b, "items": len(both),
                     "agreement": float((both[a] == both[b]).mean()) if len(both) else float("nan"),
                     "kappa": kappa})
    return pd.DataFrame(rows, columns=["judge_a", "judge_b", "items", "agreement", "kappa"])


def krippendorff_alpha(wide: pd.DataFrame, judges: list[str]) -> float:
    """Krippendorff's α (nominal) over all judges; missing labels allowed."""
    import krippendorff

    labels = sorted({v for j in judges for v in wide[j].dropna().unique()})
    if len(judges) < 2 or len(labels) < 2:
        return float("nan")
    codes = {label: i for i, label in enumerate(labels)}
    data = np.array([[codes.get(v, np.nan) if isinstance(v, str) else np.nan for v in wide[j]]
                     for j in judges], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def core_counts(grid: pd.DataFrame) -> pd.DataFrame:
    """Per setting of one question: asserted core claims over core claims ("1/2 core")."""
    core = grid[grid["role"] == "core"]
    out = core.groupby("setting", sort=True).agg(
        core=("ord", "count"), asserted_core=("verdict", lambda v: int((v == "asserted").sum())))
    out["label"] = out["asserted_core"].astype(str) + "/" + out["core"].astype(str) + " core"
    return out.reset_index()
