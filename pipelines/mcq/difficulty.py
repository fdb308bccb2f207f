"""QA difficulty D = (D_q + D_a + D_qa) / 3 (StoryVideoQA §3.4, Figures 12, 17, 20).

Choices where the paper's text leaves room (documented in docs/STORYVIDEOQA.md, tested in
tests/pipelines/mcq/test_mcq_difficulty.py):

- Segment length |L| is the question's stored `evidence_seconds`: the summed length of its
  evidence `times` spans as the importer reads them (`svqa_golden.evidence_seconds`, the one
  definition). A question with no readable span ("throughout", "cross scene", empty) or a
  length of 0 gets the mean of the set's others.
- Story elements |S| = number of characters + number of locations.
- D_q: the paper gives the z-scores z_l, z_s but not how they become one value in [0, 1]. We
  take z within each video (a segment is short relative to that video's questions; population
  std; std 0 gives z 0), pass each through 1 - sigmoid (shorter, fewer -> harder) and average:
  D_q = ((1 - s(z_l)) + (1 - s(z_s))) / 2. This is what the authors' released diff_measure.py
  does, and it yields the paper's D_q centred near 0.6 for right-skewed segment lengths.
- D_a: B_a is the mean BERTScore F1 of the GT (candidate) against each other option
  (reference). "Normalised" B_a-hat = sigmoid(z-score of B_a over the set), which keeps it in
  (0, 1) as the binary entropy needs; the entropy uses natural logs, so D_a lies in
  [1 - ln 2, 1] = [0.307, 1] (the paper's D_a concentrates at 0.35).
- D_qa = 1 - min-max(B_qa) over the set, B_qa = BERTScore F1(question, GT).
- Bins: nine equal-count bins of D (Figure 20), 1 = easiest, by rank so ties split evenly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from data_access.importers.svqa_golden import evidence_seconds

N_BINS = 9


def segment_seconds(times) -> float:
    """Total length of evidence spans like '00:01:02-00:01:09' (MM:SS allowed); 0 if none.
    The importer's reading (`evidence_seconds`), for frames that lack the stored column."""
    spans = [str(span) for span in times] if times is not None else []
    return (evidence_seconds(spans)[0] or 0.0) if spans else 0.0


def sigmoid(x):
    """The logistic function, elementwise."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def zscore(values: pd.Series) -> pd.Series:
    """(x - mean) / population std; 0 where the std is 0."""
    std = values.std(ddof=0)
    if not std or np.isnan(std):
        return pd.Series(0.0, index=values.index)
    return (values - values.mean()) / std


def question_difficulty(frame: pd.DataFrame) -> pd.Series:
    """D_q from segment length and story-element count, z-scored within each video.

    The length is the stored `evidence_seconds` where the frame has it (mcq_questions rows),
    else the same reading of `times`."""
    if "evidence_seconds" in frame:
        span = pd.to_numeric(frame["evidence_seconds"], errors="coerce").fillna(0.0)
    else:
        span = frame["times"].map(segment_seconds)
    readable = span[span > 0]
    span = span.where(span > 0, readable.mean() if len(readable) else 0.0)
    elements = frame["characters"].map(_count) + frame["locations"].map(_count)
    z_l = span.groupby(frame["vid"]).transform(zscore)
    z_s = elements.astype(float).groupby(frame["vid"]).transform(zscore)
    return pd.Series(((1 - sigmoid(z_l)) + (1 - sigmoid(z_s))) / 2, index=frame.index)


def _count(items) -> int:
    return 0 if items is None else len([i for i in items if str(i).strip()])


def binary_entropy_nats(p):
    """-p ln p - (1-p) ln(1-p), 0 at p in {0, 1}."""
    p = np.clip(np.asarray(p, dtype=float), 1e-12, 1 - 1e-12)
    return -p * np.log(p) - (1 - p) * np.log(1 - p)


def answer_difficulty(b_a: pd.Series) -> pd.Series:
    """D_a = 1 - H(B_a-hat), B_a-hat = sigmoid(z(B_a)) over the set."""
    return pd.Series(1 - binary_entropy_nats(sigmoid(zscore(b_a))), index=b_a.index)


def qa_difficulty(b_qa: pd.Series) -> pd.Series:
    """D_qa = 1 - (B_qa - min) / (max - min); 0.5 when all B_qa are equal."""
    low, high = b_qa.min(), b_qa.max()
    if high == low:
        return pd.Series(0.5, index=b_qa.index)
    return 1 - (b_qa - low) / (high - low)


def equal_count_bins(values: pd.Series, n_bins: int = N_BINS) -> pd.Series:
    """Bins 1..n_bins holding equal numbers of items (by rank), 1 = lowest values."""
    if values.empty:
        return pd.Series(dtype="Int64")
    ranks = values.rank(method="first")
    return (pd.qcut(ranks, min(n_bins, len(values)), labels=False) + 1).astype("Int64")


PairScorer = Callable[[list[str], list[str]], np.ndarray]


def option_pairs(frame: pd.DataFrame) -> tuple[list[str], list[str], list[int]]:
    """(GT, other option) pairs for B_a and the row each pair belongs to."""
    cands, refs, owner = [], [], []
    for row, (choices, option) in enumerate(zip(frame["choices"], frame["option"])):
        choices = list(choices)
        g = "ABCDE".find(str(option).strip().upper())
        for i, text in enumerate(choices):
            if i != g:
                cands.append(choices[g] if 0 <= g < len(choices) else "")
                refs.append(text)
                owner.append(row)
    return cands, refs, owner


def raw_bertscores(frame: pd.DataFrame, f1_scorer: PairScorer) -> pd.DataFrame:
    """B_a (mean F1 of GT against each other option; NaN without pairs) and B_qa per MCQ.

    Each question's scores depend on its own texts only, so any split of the set (e.g. one
    video per scale-out unit) gives the same values; the set-wide normalisations are in
    `difficulty_from_raw`.
    """
    frame = frame.reset_index(drop=True)
    cands, refs, owner = option_pairs(frame)
    qa_f1 = f1_scorer(list(frame["question"]), list(frame["gt"]))
    pair_f1 = f1_scorer(cands, refs)
    b_a = pd.Series(pair_f1).groupby(np.asarray(owner)).mean().reindex(range(len(frame)))
    return pd.DataFrame(
        {
            "mcq_id": frame["mcq_id"].to_numpy(),
            "b_a": b_a.to_numpy(dtype=float),
            "b_qa": np.asarray(qa_f1, dtype=float),
        }
    )


def difficulty_from_raw(frame: pd.DataFrame, raw: pd.DataFrame) -> pd.DataFrame:
    """D_q, D_a, D_qa, D and its bin from `raw_bertscores` rows (any order) of `frame`."""
    frame = frame.reset_index(drop=True)
    raw = raw.set_index("mcq_id").reindex(frame["mcq_id"])
    out = pd.DataFrame({"mcq_id": frame["mcq_id"].to_numpy()})
    b_a = pd.Series(raw["b_a"].to_numpy(dtype=float))
    out["b_a"] = b_a.fillna(b_a.mean()).to_numpy()
    out["b_qa"] = raw["b_qa"].to_numpy(dtype=float)
    out["d_q"] = question_difficulty(frame).to_numpy()
    out["d_a"] = answer_difficulty(out["b_a"])
    out["d_qa"] = qa_difficulty(out["b_qa"])
    out["d"] = (out["d_q"] + out["d_a"] + out["d_qa"]) / 3
    out["bin"] = equal_count_bins(out["d"])
    return out


def compute_difficulty(frame: pd.DataFrame, f1_scorer: PairScorer) -> pd.DataFrame:
    """D_q, D_a, D_qa, D and its bin for every MCQ of `frame`.

    Args:
        frame: mcq_questions rows (mcq_id, vid, question, choices, gt, option, characters,
            locations, times).
        f1_scorer: (candidates, references) -> BERTScore F1 per pair (see `minilm_f1_scorer`).
    """
    return difficulty_from_raw(frame, raw_bertscores(frame, f1_scorer))


def minilm_f1_scorer(batch_size: int = 128) -> PairScorer:
    """BERTScore F1 on MiniLM (last layer, no idf, no rescaling), encoding each text once."""
    from pipelines.mcq.bertscore import bert_score, encode_texts

    def score(candidates: list[str], references: list[str]) -> np.ndarray:
        encoded = encode_texts(candidates + references, batch_size=batch_size)
        return bert_score(candidates, references, encoded=encoded).f1

    return score
