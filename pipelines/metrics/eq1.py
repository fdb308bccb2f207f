"""Eq. 1 of LF-VideoQA (§3.3): per-question recall, precision, F1 and contradiction rate.

    R_q = |A_q ∩ C_q| / |C_q|      P_q = |A_q| / (|A_q| + |X_q|)
    F1_q = 2 P_q R_q / (P_q + R_q) contradiction_q = |X_q| / |K_q|

Choices where the paper is silent (docs/JUDGE.md, "Metrics"):
- P_q when the answer commits to no claim (|A_q| + |X_q| = 0, e.g. a declined answer) is 0:
  an answer earns precision only by asserting rubric content, so declining everything cannot
  score perfect precision. F1_q is 0 when P_q + R_q = 0.
- A question without core claims has no R_q (NaN); it is left out of the recall and F1 means.
- Answers missing a verdict for some rubric claim are left out (and counted) rather than
  guessed; several answers of one setting to one question are averaged into one question.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

METRICS = ("recall", "precision", "f1", "contradiction")
EMPTY_PRECISION = 0.0


def per_answer_scores(counts: pd.DataFrame) -> pd.DataFrame:
    """Add recall, precision, f1, contradiction columns to verdict counts (vectorised)."""
    frame = counts.copy()
    core = frame.n_core.to_numpy(float)
    asserted = frame.n_asserted.to_numpy(float)
    contradicted = frame.n_contradicted.to_numpy(float)
    committed = asserted + contradicted
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(core > 0, frame.n_core_asserted.to_numpy(float) / core, np.nan)
        precision = np.where(committed > 0, asserted / committed, EMPTY_PRECISION)
        denominator = precision + recall
        f1 = np.where(denominator > 0, 2 * precision * recall / denominator, 0.0)
    f1 = np.where(np.isnan(recall), np.nan, f1)
    frame["recall"], frame["precision"], frame["f1"] = recall, precision, f1
    frame["contradiction"] = contradicted / frame.n_claims.to_numpy(float)
    return frame


def per_question_scores(counts: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Scores per (setting, question); returns (frame, number of incompletely judged answers)."""
    complete = counts[counts.n_judged >= counts.n_claims]
    scored = per_answer_scores(complete)
    keys = ["setting_id", "setting_label", "question_id", "qtype"]
    per_question = scored.groupby(keys, as_index=False)[list(METRICS)].mean()
    return per_question, int(len(counts) - len(complete))
