"""Slice metrics and judge agreement for the Verdicts page.

Eq. 1 (LF-VideoQA §3.3) and the question bootstrap are `pipelines.metrics` (the same code as
`storyscope metrics`), so the page and the CLI print the same numbers; this module only feeds
them the page's slice (film, types, settings) and reshapes the rows for the Table 3 / Table 4
layouts. Agreement (Cohen's κ per judge pair, Krippendorff's α) is computed from counts the
store aggregates (confusion tables, verdict-count patterns), with `pipelines.agreement`'s numpy
implementations (statsmodels is only the tests' reference: the runtime must not need it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.metrics import METRICS, per_question_scores
from pipelines.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from pipelines.metrics.tables import interval_rows


def slice_metrics(
    counts: pd.DataFrame,
    by_type: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Question means of recall, precision, F1 and contradiction with 95% bootstrap intervals.

    Args:
        counts: `verdicts_view.answer_counts` rows (the `verdict_counts` layout).
        by_type: group by setting × question type (Table 4) instead of setting (Table 3).

    Returns:
        Columns setting_id, setting, qtype, questions, and per metric <m>, <m>_lo, <m>_hi.
    """
    per_question, _ = per_question_scores(counts)
    if per_question.empty:
        return pd.DataFrame()
    keys = ["setting_id", "qtype"] if by_type else ["setting_id"]
    rows = interval_rows(per_question, keys, resamples, seed)
    labels = dict(zip(counts["setting_id"], counts["setting_label"]))
    out = []
    for row in rows:
        flat = {
            "setting_id": row["setting"],
            "setting": labels.get(row["setting"], row["setting"]),
            "qtype": row["type"],
            "questions": row["n"],
        }
        for metric in METRICS:
            low, high = row[f"{metric}_ci"]
            flat[metric] = np.nan if row[metric] is None else row[metric]
            flat[f"{metric}_lo"] = np.nan if low is None else low
            flat[f"{metric}_hi"] = np.nan if high is None else high
        out.append(flat)
    return pd.DataFrame(out)


def metrics_by_setting(counts: pd.DataFrame) -> pd.DataFrame:
    """`slice_metrics` by setting (Table 3), default resamples and seed."""
    return slice_metrics(counts)


def metrics_by_setting_and_type(counts: pd.DataFrame) -> pd.DataFrame:
    """`slice_metrics` by setting × question type (Table 4), default resamples and seed."""
    return slice_metrics(counts, by_type=True)


def kappa_pairs(confusions: pd.DataFrame) -> pd.DataFrame:
    """Cohen's κ, Krippendorff's α (nominal) and raw agreement per judge pair from
    (verdict_a, verdict_b, n) counts (`verdicts_view.agreement_confusions`): κ via
    `pipelines.agreement`'s κ of the table, α from the same table (App. G reports both per
    pair)."""
    from pipelines.agreement.stats import cohen_kappa_from_table

    rows = []
    for (a, b), part in confusions.groupby(["judge_a", "judge_b"], sort=True):
        labels = sorted(set(part["verdict_a"]) | set(part["verdict_b"]))
        table = (
            part.pivot_table(index="verdict_a", columns="verdict_b", values="n", aggfunc="sum")
            .reindex(index=labels, columns=labels, fill_value=0)
            .fillna(0)
            .to_numpy(float)
        )
        items = int(table.sum())
        kappa = cohen_kappa_from_table(table) if len(labels) > 1 else float("nan")
        rows.append(
            {
                "judge_a": a,
                "judge_b": b,
                "items": items,
                "agreement": float(np.trace(table) / items) if items else float("nan"),
                "kappa": kappa,
                "alpha": pair_alpha_from_confusion(table),
            }
        )
    columns = ["judge_a", "judge_b", "items", "agreement", "kappa", "alpha"]
    return pd.DataFrame(rows, columns=columns)


def pair_alpha_from_confusion(table: np.ndarray) -> float:
    """Krippendorff's α (nominal) of two judges from their square confusion table: each cell
    (i, j) with count m is m items labelled i by one judge and j by the other."""
    from pipelines.agreement import krippendorff_alpha_nominal

    size = table.shape[0]
    eye = np.eye(size)
    per_cell = (eye[:, None, :] + eye[None, :, :]).reshape(size * size, size)
    if table.sum() == 0:
        return float("nan")
    return krippendorff_alpha_nominal(np.repeat(per_cell, table.astype(int).ravel(), axis=0))


def alpha_from_patterns(patterns: pd.DataFrame) -> float:
    """Krippendorff's α (nominal) from verdict-count patterns with multiplicities
    (`verdicts_view.agreement_patterns`), using `pipelines.agreement`'s implementation."""
    from pipelines.agreement import krippendorff_alpha_nominal

    if patterns.empty:
        return float("nan")
    counts = patterns[["asserted", "contradicted", "omitted", "other"]].to_numpy(float)
    return krippendorff_alpha_nominal(np.repeat(counts, patterns["items"].to_numpy(int), axis=0))


def core_counts(grid: pd.DataFrame) -> pd.DataFrame:
    """Per setting of one question: asserted core claims over core claims ("1/2 core"), "not
    judged" when the grid holds no verdict on its core claims, and how many are unjudged when
    only some are ("1/2 core, 1 not judged": never a count that reads as a judged 0)."""
    core = grid[grid["role"] == "core"].assign(
        asserted=lambda f: f["verdict"] == "asserted", judged=lambda f: f["verdict"].notna()
    )
    # built-in aggregations only: a Python lambda per setting cost 0.2 s per Verdicts render
    out = core.groupby("setting", sort=True).agg(
        core=("ord", "count"), asserted_core=("asserted", "sum"), judged=("judged", "sum")
    )
    out["asserted_core"] = out["asserted_core"].astype(int)
    unjudged = out["core"] - out["judged"].astype(int)
    label = out["asserted_core"].astype(str) + "/" + out["core"].astype(str) + " core"
    label = label.where(unjudged == 0, label + ", " + unjudged.astype(str) + " not judged")
    out["label"] = label.where(out["judged"] > 0, "not judged")
    return out.drop(columns="judged").reset_index()
