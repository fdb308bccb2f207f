"""Classic DTW of subtitle cues to script dialogue lines (StoryMindv2 §3.1 / App. B.2).

StoryMindv2 aligns scripts to subtitles "with the dynamic time warping (DTW) algorithm, used in
PAINS" and then corrects the result by hand; neither paper gives the DTW's cost function. What the
released `results` sheets show (checked on the 7 films and 10 GOT episodes in ../shared/data):

- the path covers every dialogue line (each line's row id appears in `results`) and every cue,
  in monotonic order — i.e. the classic DTW with steps (cue+1), (line+1) and (both+1);
- a cue the path stretches over several lines gets one results row per line; the cue's row is
  the first of those rows (the lowest line).

We reproduce that step pattern and convention with our own cost, 1 − the mean of two IDF-weighted
shares (`align.similarity_matrix`): of the cue's tokens found in the line, and of the line's tokens
found in the cue. The symmetric mean lets a short cue ("Hello?") prefer the short line that is all
of it over a long speech that merely contains the word; on the human sheets' row column it scored
higher than the cue-only share on 6 of 7 films (films mean 0.766 vs 0.745). The release's own cost
is unknown, so this DTW agrees with its `results` on 60–94% of cues, not all
(docs/PREPROCESSING.md).
Whole cues are aligned (not speaker turns), as in the release's sheets. `align-eval --method dtw`
scores it; the ingest DP (`align.py`) is the default there because it matches the human scene and
speaker corrections better (films mean 0.820 vs 0.775, docs/PREPROCESSING.md).

The DTW is computed row by row: within a cue's row,
D[i, j] = P[j] + min_{k ≤ j} (E[k] − P[k]) with P the row's cumulative cost and
E[k] = c[i, k] + min(D[i−1, k], D[i−1, k−1]), so each cue costs a few vector operations.
"""

from __future__ import annotations

import numpy as np

from pipelines.preprocess.align import similarity_matrix


def dtw_cost_rows(cost: np.ndarray) -> np.ndarray:
    """Accumulated DTW cost D (cues × lines) for steps (1, 0), (0, 1) and (1, 1), all weight 1."""
    n_cues, n_lines = cost.shape
    accumulated = np.empty((n_cues, n_lines), dtype=np.float64)
    accumulated[0] = np.cumsum(cost[0])
    for i in range(1, n_cues):
        previous, row = accumulated[i - 1], cost[i]
        entry = previous + row  # from (i-1, k): a vertical step
        entry[1:] = np.minimum(entry[1:], previous[:-1] + row[1:])  # from (i-1, k-1): diagonal
        prefix = np.cumsum(row)
        # then horizontal steps along the row from k to j add row[k+1..j] = prefix[j] - prefix[k]
        accumulated[i] = prefix + np.minimum.accumulate(entry - prefix)
    return accumulated


def dtw_path(cost: np.ndarray) -> list[tuple[int, int]]:
    """The optimal DTW path as (cue, line) pairs from (0, 0) to the last cell.

    Ties prefer the diagonal, then the vertical step (a new cue on the same line), as the
    release's sheets stretch a cue over lines only where the text forces it.
    """
    n_cues, n_lines = cost.shape
    if n_cues == 0 or n_lines == 0:
        return []
    accumulated = dtw_cost_rows(cost)
    i, j = n_cues - 1, n_lines - 1
    path = [(i, j)]
    while i > 0 or j > 0:
        if i == 0:
            j -= 1
        elif j == 0:
            i -= 1
        else:
            step = int(
                np.argmin([accumulated[i - 1, j - 1], accumulated[i - 1, j], accumulated[i, j - 1]])
            )
            i, j = (i - 1, j - 1) if step == 0 else (i - 1, j) if step == 1 else (i, j - 1)
        path.append((i, j))
    return path[::-1]


def dtw_similarity(cue_texts: list[str], line_texts: list[str]) -> np.ndarray:
    """Mean of the cue-in-line and line-in-cue IDF-weighted token shares: shape (cues, lines)."""
    cue_in_line = similarity_matrix(cue_texts, line_texts).astype(np.float64)
    line_in_cue = similarity_matrix(line_texts, cue_texts).astype(np.float64).T
    return (cue_in_line + line_in_cue) / 2.0


def dtw_cue_to_line(cue_texts: list[str], line_texts: list[str]) -> list[int | None]:
    """Each cue's line under the classic DTW: the first (lowest) line the path gives the cue.

    Args:
        cue_texts: subtitle cue texts in time order.
        line_texts: dialogue line texts in script order.

    Returns:
        One line index per cue (None for every cue when there are no lines).
    """
    if not line_texts:
        return [None] * len(cue_texts)
    if not cue_texts:
        return []
    cost = 1.0 - dtw_similarity(cue_texts, line_texts)
    first: dict[int, int] = {}
    for cue, line in dtw_path(cost):
        first.setdefault(cue, line)  # the path visits lines in increasing order
    return [first[cue] for cue in range(len(cue_texts))]
