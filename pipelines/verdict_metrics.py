"""Claim-level metrics and judge agreement for the Verdicts page.

Metrics follow LF-VideoQA §3.3, Eq. (1): for a question q with rubric K_q, core claims C_q, and
the answer's asserted A_q and contradicted X_q claims,
    R_q = |A_q ∩ C_q| / |C_q|,  P_q = |A_q| / (|A_q| + |X_q|),  F1_q = 2 P R / (P + R),
    contradiction rate = |X_q| / |K_q|,
each averaged over questions. The paper leaves P_q undefined when an answer asserts and
contradicts nothing; we then set P_q = 0 (the answer commits to no rubric claim, so it earns no
precision credit) and F1_q = 0 — documented choice, tested in tests/test_viz_verdicts.py.
Intervals are 95% percentile bootstrap intervals over questions (Table 4: "w/ 95% bootstrap
interval"), with a fixed seed so a page shows the same numbers on every rerun.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

METRICS = ("recall", "precision", "f1", "contradiction")
BOOTSTRAP_SAMPLES = 1000
SEED = 20260


def per_answer_metrics(counts: pd.DataFrame) -> pd.DataFrame:
    """Add recall, precision, f1, contradiction columns (Eq. 1) to per-answer counts.

    Args:
        counts: columns claims, core, asserted, asserted_core, contradicted (one row per answer).
    """
    out = counts.copy()
    core = out["core"].where(out["core"] > 0)
    out["recall"] = (out["asserted_core"] / core).fillna(0.0)
    committed = out["asserted"] + out["contradicted"]
    out["precision"] = (out["asserted"] / committed.where(committed > 0)).fillna(0.0)
    both = out["precision"] + out["recall"]
    out["f1"] = (2 * out["precision"] * out["recall"] / both.where(both > 0)).fillna(0.0)
    out["contradiction"] = out["contradicted"] / out["claims"].where(out["claims"] > 0)
    return out


def bootstrap_ci(values: np.ndarray, samples: int = BOOTSTRAP_SAMPLES, seed: int = SEED) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of `values`."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if len(values) < 2:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(samples, len(values)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def metrics_by(per_answer: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean of each metric per group with its bootstrap interval (columns <m>, <m>_lo, <m>_hi)."""
    rows = []
    for key_values, group in per_answer.groupby(keys, sort=True):
        key_values = key_values if isinstance(key_values, tuple) else (key_values,)
        row = dict(zip(keys, key_values))
        row["questions"] = len(group)
        for metric in METRICS:
            row[metric] = float(group[metric].mean())
            row[f"{metric}_lo"], row[f"{metric}_hi"] = bootstrap_ci(group[metric].to_numpy())
        rows.append(row)
    return pd.DataFrame(rows)


def cohen_kappa_pairs(wide: pd.DataFrame, judges: list[str]) -> pd.DataFrame:
    """Cohen's κ for every pair of judges on the items both labelled."""
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
