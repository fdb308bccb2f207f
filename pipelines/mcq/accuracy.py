"""Accuracy of imported predictions per difficulty bin (Figure 20), per topic (Tables 8-9
layout: P/I x C, A, L, CA, CL, AL, CAL, then Avg) and per video type (Figure 12(c): TV, Movie).

Avg is the mean over all predicted questions (micro), as the tables' last column."""

from __future__ import annotations

import pandas as pd

from pipelines.mcq.topics import TOPICS, topic_label

TV_SOURCES = {"Friends", "BigBang", "GOT"}


def video_type(source: str) -> str:
    """'TV' for the series, 'Movie' for films."""
    return "TV" if source in TV_SOURCES else "Movie"


def _pct(series: pd.Series) -> float:
    return round(100.0 * float(series.mean()), 2) if len(series) else float("nan")


def accuracy_by_topic(predictions: pd.DataFrame) -> pd.DataFrame:
    """One row per method, one column per topic plus Avg (percent correct)."""
    frame = predictions.assign(
        topic=[
            topic_label(t, e)
            for t, e in zip(predictions["question_type"], predictions["story_element"])
        ]
    )
    rows = []
    for method, part in frame.groupby("method", sort=True):
        row = {"method": method}
        row.update({t: _pct(part.loc[part["topic"] == t, "correct"]) for t in TOPICS})
        row["Avg"] = _pct(part["correct"])
        rows.append(row)
    return pd.DataFrame(rows, columns=["method", *TOPICS, "Avg"])


def accuracy_by_video_type(predictions: pd.DataFrame) -> pd.DataFrame:
    """Percent correct per method and video type (TV / Movie)."""
    frame = predictions.assign(video_type=predictions["source"].map(video_type))
    table = frame.groupby(["method", "video_type"])["correct"].mean().mul(100).round(2)
    return table.unstack("video_type").reset_index()


def accuracy_by_bin(predictions: pd.DataFrame, difficulty: pd.DataFrame) -> pd.DataFrame:
    """Percent correct per method and difficulty bin (questions without a bin are left out)."""
    joined = predictions.merge(difficulty[["mcq_id", "bin"]], on="mcq_id", how="inner")
    table = joined.groupby(["bin", "method"])["correct"].mean().mul(100).round(2)
    return table.reset_index().rename(columns={"correct": "accuracy"})


# Figure 17 (StoryVideoQA §6.2.1 "Difficulty Influence"): accuracy over "discretized bins of
# question (D_q), answer (D_a), and question-answer difficulty (D_qa)". The paper does not say
# how the factors are discretised; we use the same nine equal-count bins as D (Fig. 20), each
# factor binned on its own, so every bin holds the same number of questions.
DIFFICULTY_FACTORS = ("d_q", "d_a", "d_qa")


def accuracy_by_factor_bins(
    predictions: pd.DataFrame, difficulty: pd.DataFrame, n_bins: int | None = None
) -> pd.DataFrame:
    """Percent correct per difficulty factor (D_q, D_a, D_qa), bin and method, plus the mean
    over methods (method "average", the curve Figure 17 reads as "average performance").

    Returns:
        Columns factor, bin, lo, hi (the factor's range in the bin), n (questions), method,
        accuracy.
    """
    from pipelines.mcq.difficulty import N_BINS, equal_count_bins

    frames = []
    for factor in DIFFICULTY_FACTORS:
        binned = difficulty[["mcq_id", factor]].assign(
            bin=equal_count_bins(difficulty[factor], n_bins or N_BINS)
        )
        ranges = binned.groupby("bin")[factor].agg(lo="min", hi="max", n="count")
        joined = predictions.merge(binned[["mcq_id", "bin"]], on="mcq_id", how="inner")
        by_method = joined.groupby(["bin", "method"])["correct"].mean().mul(100)
        average = by_method.groupby("bin").mean()
        table = pd.concat(
            [
                by_method.reset_index(),
                average.rename("correct").reset_index().assign(method="average"),
            ]
        )
        table = table.merge(ranges.reset_index(), on="bin").assign(factor=factor)
        frames.append(table.rename(columns={"correct": "accuracy"}))
    columns = ["factor", "bin", "lo", "hi", "n", "method", "accuracy"]
    if not frames:
        return pd.DataFrame(columns=columns)
    out = pd.concat(frames, ignore_index=True)[columns]
    out["accuracy"] = out["accuracy"].round(2)
    out["bin"] = out["bin"].astype(int)
    return out.sort_values(["factor", "bin", "method"], ignore_index=True)
