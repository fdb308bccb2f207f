"""The subtitle baseline's context: a video's subtitle cues within a token budget.

Rule (ours; StoryVideoQA reports no subtitle-only baseline, Tables 8-9): every cue is one line
`[HH:MM:SS] text`, in time order. When all lines fit the budget, all are given. When they do
not, an **evenly spaced subset of cues** is kept: for k cues out of n, the cues at positions
floor((i + 1/2) * n / k), i = 0..k-1, with k the largest count (found by bisection) whose lines
fit. The choice reads only the cue order and the line lengths — never the question, its
options, its evidence times or its answer — so every question about a video gets the same
context, and every stretch of the video stays represented, as a uniformly sampled frame set
represents it (the MLLMs of Tables 8-9 get "the default or officially recommended number of
input frames", §6.1, which these models sample uniformly). Keeping the first cues that fit
instead would make every question about the ending unanswerable by construction.

The budget counts the subtitle lines only (estimated tokens, `answer_prompts.estimate_tokens`),
not the instruction, question and options around them (a few hundred tokens): counting those
would make the kept cues depend on the question's length. Leave that headroom below the model's
window.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.mcq.answer_prompts import estimate_tokens

RULE = "evenly-spaced-cues"


@dataclass(frozen=True)
class FittedSubtitles:
    """The context given for one video, and what was cut (the run's provenance)."""

    text: str
    cues_total: int
    cues_kept: int
    tokens: int  # estimated tokens of `text`
    budget: int | None
    first_s: float | None  # start of the first kept cue
    last_s: float | None  # start of the last kept cue
    kept_positions: tuple[int, ...]

    def provenance(self) -> dict:
        """What the run records per video."""
        return {
            "rule": RULE,
            "budget": self.budget,
            "cues_total": self.cues_total,
            "cues_kept": self.cues_kept,
            "cues_cut": self.cues_total - self.cues_kept,
            "tokens": self.tokens,
            "first_s": self.first_s,
            "last_s": self.last_s,
        }


def clock(seconds: float) -> str:
    """'HH:MM:SS' of a time in seconds."""
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def cue_line(start_s: float, text: str) -> str:
    """One subtitle line as given to the model (line breaks inside a cue become spaces)."""
    return f"[{clock(start_s)}] {' '.join(str(text).split())}"


def evenly_spaced(n: int, k: int) -> list[int]:
    """k of n positions, evenly spaced: floor((i + 1/2) * n / k) for i < k."""
    return [int((2 * i + 1) * n // (2 * k)) for i in range(k)] if k > 0 else []


def fit_subtitles(starts: list[float], texts: list[str], budget: int | None) -> FittedSubtitles:
    """The subtitle context of one video under `budget` estimated tokens (None: everything).

    Args:
        starts: cue start times in seconds, in time order.
        texts: cue texts, aligned with `starts`.
        budget: the most estimated tokens the lines may take, or None for no limit.
    """
    lines = [cue_line(s, t) for s, t in zip(starts, texts)]
    n = len(lines)

    def joined(positions: list[int]) -> str:
        return "\n".join(lines[p] for p in positions)

    def fits(positions: list[int]) -> bool:
        return budget is None or estimate_tokens(joined(positions)) <= budget

    if fits(list(range(n))):
        kept = list(range(n))
    else:
        low, high = 0, n - 1  # the empty selection always fits; all n do not
        while low < high:
            middle = (low + high + 1) // 2
            if fits(evenly_spaced(n, middle)):
                low = middle
            else:
                high = middle - 1
        kept = evenly_spaced(n, low)
    text = joined(kept)
    return FittedSubtitles(
        text=text,
        cues_total=n,
        cues_kept=len(kept),
        tokens=estimate_tokens(text),
        budget=budget,
        first_s=float(starts[kept[0]]) if kept else None,
        last_s=float(starts[kept[-1]]) if kept else None,
        kept_positions=tuple(kept),
    )
