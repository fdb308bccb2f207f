"""Monotonic alignment of subtitle cues to screenplay dialogue lines (LF-VideoQA App. C).

The paper's rule: "a monotonic sequence alignment" of dialogue lines to cues; "a line is matched
when at least half of its tokens match a cue"; "a scene takes the time span of its matched
lines". We solve the alignment as one dynamic programme over (cue, line):

- every cue is assigned to one line, and assignments never go backwards (monotonic);
- several consecutive cues may share a line (one long speech split over cues) and a cue that
  spans two short lines counts for both (its score is measured against either);
- moving to the next line is free, skipping `k` lines costs `skip_cost * k` (lines cut from
  the film), so one spurious word match far ahead cannot drag the path there;
- the score of putting cue i on line j is the IDF-weighted share of the cue's tokens found in
  the line (rare words count more than "I" or "you").

The IDF-weighted token overlap matrix is computed with sparse matrix products (scikit-learn's
vectoriser), and the DP runs one vectorised row per cue, so a 1,500 × 1,200 film aligns in well
under a second (benchmarks/bench_align.py).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

TOKEN_PATTERN = r"(?u)\b\w+\b"
# "- Where's the Imp? - Will you shut up?": one cue, two speakers (a dash opens each turn);
# released subtitle sheets also join turns mid-line: "...but I do. - no, I meant every word."
SPEAKER_DASH_RE = re.compile(r"(?:^|(?<=[.?!…\"'])\s+|\s*\n\s*)-+\s*(?=\S)")
PARENTHETICAL_RE = re.compile(r"\([^)]*\)")


def normalise_for_matching(text: str) -> str:
    """Lower case, curly quotes straightened, accents dropped, stage directions removed."""
    text = PARENTHETICAL_RE.sub(" ", text or "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = text.lower().replace("'", "")
    return text


def tokens(text: str) -> list[str]:
    """The matching tokens of a text (as used by the half-of-tokens rule)."""
    return re.findall(TOKEN_PATTERN, normalise_for_matching(text))


@dataclass
class Alignment:
    """The cue → line assignment and the line-level match decisions."""

    cue_to_line: list[int | None]  # line index for every cue (None: no lines at all)
    cue_score: list[float]  # overlap score of each cue with its line
    line_matched: list[bool]  # ≥ half of the line's tokens found in its cues
    line_coverage: list[float]  # share of the line's tokens found in its cues

    @property
    def share_lines_matched(self) -> float:
        return float(np.mean(self.line_matched)) if self.line_matched else 0.0

    @property
    def share_cues_scored(self) -> float:
        """Share of cues whose tokens overlap their line at all (a health signal)."""
        return float(np.mean([s > 0 for s in self.cue_score])) if self.cue_score else 0.0


def similarity_matrix(cue_texts: list[str], line_texts: list[str]) -> np.ndarray:
    """IDF-weighted share of each cue's tokens present in each line: shape (cues, lines)."""
    vectoriser = CountVectorizer(
        binary=True,
        token_pattern=TOKEN_PATTERN,
        preprocessor=normalise_for_matching,
        dtype=np.float32,
    )
    try:
        both = vectoriser.fit_transform(list(cue_texts) + list(line_texts)).tocsr()  # tokenise once
    except ValueError:  # no token anywhere
        return np.zeros((len(cue_texts), len(line_texts)), dtype=np.float32)
    cues, lines = both[: len(cue_texts)], both[len(cue_texts) :]
    document_frequency = (
        np.asarray(lines.sum(axis=0)).ravel() + np.asarray(cues.sum(axis=0)).ravel()
    )
    idf = np.log((len(cue_texts) + len(line_texts) + 1) / (document_frequency + 1)) + 1.0
    weighted = cues.multiply(idf.reshape(1, -1)).tocsr()
    overlap = (weighted @ lines.T).toarray()
    totals = np.asarray(weighted.sum(axis=1)).ravel()
    return (overlap / np.maximum(totals, 1e-9)[:, None]).astype(np.float32)


def monotonic_path(score: np.ndarray, skip_cost: float = 0.02) -> list[int]:
    """The monotonic cue → line path maximising total score minus skip costs.

    dp[i, j] = score[i, j] + max(dp[i-1, j], max_{k<j} dp[i-1, k] - skip_cost * (j - k - 1)).
    The inner max is a running maximum of dp[i-1, k] + skip_cost * (k + 1), so each cue costs a
    few vector operations; the rows are kept and the path is recovered by one argmax per cue.
    """
    n_cues, n_lines = score.shape
    if n_cues == 0 or n_lines == 0:
        return []
    offsets = skip_cost * np.arange(1, n_lines + 1, dtype=np.float64)  # skip_cost * (k + 1)
    rows = np.empty((n_cues, n_lines), dtype=np.float64)
    # Leading lines cut from the film cost the same per line as any other skip.
    rows[0] = score[0] - (offsets - skip_cost)
    from_before = np.full(n_lines, -np.inf)
    for i in range(1, n_cues):
        best_before = np.maximum.accumulate(rows[i - 1] + offsets)
        from_before[1:] = best_before[:-1] - offsets[:-1]
        rows[i] = score[i] + np.maximum(rows[i - 1], from_before)
    return _backtrack(rows, offsets)


def _backtrack(rows: np.ndarray, offsets: np.ndarray) -> list[int]:
    """Recover the path: stay on the line when that was best, else the best earlier line."""
    path = [int(np.argmax(rows[-1]))]
    for i in range(len(rows) - 1, 0, -1):
        j = path[-1]
        previous = rows[i - 1]
        if j == 0:
            path.append(0)
            continue
        earlier = previous[:j] + offsets[:j]
        k = int(np.argmax(earlier))
        path.append(j if previous[j] >= earlier[k] - offsets[j - 1] else k)
    return path[::-1]


def line_coverage(
    cue_texts: list[str], line_texts: list[str], cue_to_line: list[int]
) -> list[float]:
    """Share of each line's tokens that appear in the cues assigned to it."""
    heard: dict[int, set[str]] = {}
    for cue, line in enumerate(cue_to_line):
        heard.setdefault(line, set()).update(tokens(cue_texts[cue]))
    coverage = []
    for index, text in enumerate(line_texts):
        words = tokens(text)
        found = sum(1 for w in words if w in heard.get(index, ()))
        coverage.append(found / len(words) if words else 0.0)
    return coverage


def split_turns(cue_text: str) -> list[str]:
    """The speaker turns of a cue: '- Tell me. - There was a raven.' -> ['Tell me.', 'There was a
    raven.']."""
    text = cue_text.strip()
    parts = [p.strip() for p in SPEAKER_DASH_RE.split(text) if p.strip()]
    return parts or [text]


def align_cues_to_lines(
    cue_texts: list[str],
    line_texts: list[str],
    skip_cost: float = 0.02,
    match_share: float = 0.5,
    cue_times: Sequence[tuple[float, float]] | None = None,
) -> Alignment:
    """Align subtitle cues to screenplay dialogue lines, monotonically.

    Args:
        cue_texts: subtitle cue texts in time order.
        line_texts: dialogue line texts in script order.
        skip_cost: score lost per script line skipped between consecutive cues.
        match_share: share of a line's tokens its cues must cover for it to count as matched
            (the paper's "at least half", App. C).
        cue_times: (start, end) seconds of every cue. When given, a cue that shares no word
            with the script takes the line of its nearer scored neighbour in time
            (`neighbour_lines_for_unscored`); ingest and align-eval both pass them, so
            align-eval scores what ingest stores. Line matches and coverage are the DP's.
    """
    if cue_times is not None and len(cue_times) != len(cue_texts):
        raise ValueError(f"cue_times has {len(cue_times)} entries for {len(cue_texts)} cues")
    if not line_texts:
        return Alignment([None] * len(cue_texts), [0.0] * len(cue_texts), [], [])
    # A two-speaker cue is aligned turn by turn (each turn may match its own line); the cue
    # belongs to the line of its first turn, and both lines count as heard.
    turns, owner = [], []
    for index, text in enumerate(cue_texts):
        for turn in split_turns(text):
            turns.append(turn)
            owner.append(index)
    score = similarity_matrix(turns, line_texts)
    path = monotonic_path(score, skip_cost)
    coverage = line_coverage(turns, line_texts, path)
    first_turn = {}
    for position, cue in enumerate(owner):
        first_turn.setdefault(cue, position)
    alignment = Alignment(
        cue_to_line=[path[first_turn[i]] for i in range(len(cue_texts))],
        cue_score=[float(score[first_turn[i], path[first_turn[i]]]) for i in range(len(cue_texts))],
        line_matched=[c >= match_share for c in coverage],
        line_coverage=coverage,
    )
    if cue_times is not None:
        starts, ends = [t[0] for t in cue_times], [t[1] for t in cue_times]
        alignment.cue_to_line = neighbour_lines_for_unscored(alignment, starts, ends)
    return alignment


def neighbour_lines_for_unscored(
    alignment: Alignment, starts: Sequence[float], ends: Sequence[float]
) -> list[int | None]:
    """Cue → line with every cue that shares no word with the script (an ad-lib, a crowd line:
    `cue_score` 0) moved to the line of its nearer scored neighbour in time, so it takes that
    neighbour's scene, as the human-corrected StoryVideoQA sheets label such cues.

    The DP alone leaves such a cue wherever the path happens to be, which may be the far side
    of a scene boundary. Ties in time go to the earlier neighbour. Cues with a score keep
    their line. Written by hand: a nearest-neighbour pass over sorted indices (bisect).
    """
    scored = [
        i
        for i, (line, score) in enumerate(zip(alignment.cue_to_line, alignment.cue_score))
        if line is not None and score > 0
    ]
    out = list(alignment.cue_to_line)
    if not scored:
        return out
    for cue, score in enumerate(alignment.cue_score):
        if score > 0:
            continue
        k = bisect.bisect_left(scored, cue)
        before = scored[k - 1] if k > 0 else None
        after = scored[k] if k < len(scored) else None
        gap_before = starts[cue] - ends[before] if before is not None else float("inf")
        gap_after = starts[after] - ends[cue] if after is not None else float("inf")
        out[cue] = alignment.cue_to_line[before if gap_before <= gap_after else after]
    return out
