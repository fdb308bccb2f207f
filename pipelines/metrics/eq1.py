"""Eq. 1 of LF-VideoQA (§3.3): per-question recall, precision, F1 and contradiction rate.

    R_q = |A_q ∩ C_q| / |C_q|      P_q = |A_q| / (|A_q| + |X_q|)
    F1_q = 2 P_q R_q / (P_q + R_q) contradiction_q = |X_q| / |K_q|

Choices where the paper is silent (docs/JUDGE.md, "Metrics"):
- P_q when the answer commits to no claim (|A_q| + |X_q| = 0, e.g. a declined answer): by
  default ("undefined") such an answer has no precision and is left out of P's mean, the usual
  convention (FActScore, Min et al. 2023, scores precision over responding answers only and
  reports the share that respond). The share of answers committing to at least one claim is
  the `responding` column, shown next to R, P, F1 and contradiction so a setting that often
  declines is visible. The earlier convention, P_q = 0 ("zero": declining cannot score perfect
  precision), stays available as an option. F1_q is 0 when P_q + R_q = 0, and an answer that
  asserts nothing has R_q = 0 and so F1_q = 0 under both conventions.
- A question without core claims has no R_q (NaN); it is left out of the recall and F1 means.
- Answers missing a verdict for some rubric claim are left out (and counted) rather than
  guessed; several answers of one setting to one question are averaged into one question.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

METRICS = ("recall", "precision", "f1", "contradiction", "responding")
# What P_q is when the answer commits to no claim: NaN (left out of P's mean) or 0.
PRECISION_CONVENTIONS = {"undefined": np.nan, "zero": 0.0}
DEFAULT_PRECISION_CONVENTION = "undefined"


def precision_convention_note(convention: str) -> str:
    """One line saying which convention a shown precision uses (CLI header, Verdicts page)."""
    if convention == "zero":
        return "precision: an answer asserting no claim scores P = 0"
    return "precision: answers asserting no claim have no P (left out of its mean; see Resp)"


def check_precision_convention(convention: str) -> str:
    """The convention, or ValueError naming the choices."""
    if convention not in PRECISION_CONVENTIONS:
        choices = ", ".join(PRECISION_CONVENTIONS)
        raise ValueError(f"precision convention {convention!r}: expected one of {choices}")
    return convention


def per_answer_scores(
    counts: pd.DataFrame, precision_convention: str = DEFAULT_PRECISION_CONVENTION
) -> pd.DataFrame:
    """Add recall, precision, f1, contradiction, responding columns to verdict counts.

    Args:
        counts: one row per answer with n_claims, n_core, n_core_asserted, n_asserted,
            n_contradicted.
        precision_convention: "undefined" (default) or "zero", for answers asserting nothing.
    """
    empty_precision = PRECISION_CONVENTIONS[check_precision_convention(precision_convention)]
    frame = counts.copy()
    core = frame.n_core.to_numpy(float)
    asserted = frame.n_asserted.to_numpy(float)
    contradicted = frame.n_contradicted.to_numpy(float)
    committed = asserted + contradicted
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(core > 0, frame.n_core_asserted.to_numpy(float) / core, np.nan)
        precision = np.where(committed > 0, asserted / committed, empty_precision)
        # F1 from the defined precision only; with nothing asserted R = 0, so F1 = 0 either way.
        p_for_f1 = np.where(committed > 0, precision, 0.0)
        denominator = p_for_f1 + recall
        f1 = np.where(denominator > 0, 2 * p_for_f1 * recall / denominator, 0.0)
    f1 = np.where(np.isnan(recall), np.nan, f1)
    frame["responding"] = (committed > 0).astype(float)
    frame["recall"], frame["precision"], frame["f1"] = recall, precision, f1
    frame["contradiction"] = contradicted / frame.n_claims.to_numpy(float)
    return frame


def per_question_scores(
    counts: pd.DataFrame, precision_convention: str = DEFAULT_PRECISION_CONVENTION
) -> tuple[pd.DataFrame, int]:
    """Scores per (setting, question); returns (frame, number of incompletely judged answers).

    Several answers of one setting to one question are averaged (NaN precisions skipped, so a
    question has no precision only when none of its answers asserts anything)."""
    complete = counts[counts.n_judged >= counts.n_claims]
    scored = per_answer_scores(complete, precision_convention)
    keys = ["setting_id", "setting_label", "question_id", "qtype"]
    per_question = scored.groupby(keys, as_index=False)[list(METRICS)].mean()
    return per_question, int(len(counts) - len(complete))
