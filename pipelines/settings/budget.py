"""The context budget of a setting, and the rule that decides what of the film is kept.

LF-VideoQA (§4) gives each setting the whole film — screenplay, subtitle track, captions, or
frames at 0.2 fps — and says nothing of what to do when a model's window is smaller than the
film. StoryScope's rule, the same for every question of a film and never informed by the
question's evidence or rubric (the answer key):

**Even thinning.** The film is a sequence of units in film order (screenplay lines, subtitle
cues, caption chunks, frames). When they do not fit, StoryScope keeps an evenly spaced subset —
every k-th unit, for the largest fraction that fits — so what the model sees still spans the
whole film at a lower density, as sampling video at a lower frame rate does. Structural units
(scene headings) are kept first while they fit.

Rejected alternatives: keeping the head of the film (the questions' evidence spans 23 minutes
on average and often the film's two ends, App. H.2), and keeping a window around the
question's anchor (the anchor comes from the question generator's evidence, so that would leak
the answer key into the input).

Tokens are estimated, not counted with the model's own tokenizer (which StoryScope cannot fetch
offline for an arbitrary endpoint): every digit and punctuation mark counts as a token (many
tokenizers, Llama's and SmolLM's among them, split numbers into single digits, and the time
stamps of subtitles and captions are mostly digits and colons), the other characters
`CHARS_PER_TOKEN` to a token (BPE tokenizers average about 4 on English), plus a fixed cost per
image part. Measured against SmolLM2's tokenizer on the sample film
(tests/pipelines/answer/test_answer_real_server.py checks it against the server's own count):
the estimate is 4-7% above the real count on the screenplay and the subtitle track, where a
flat 3 characters a token was 34% under on subtitles.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence

CHARS_PER_TOKEN = 3.5
_SINGLE_TOKEN_CHARS = frozenset(string.digits + string.punctuation)
MESSAGE_OVERHEAD_TOKENS = 8  # role markers and separators of one chat message
CUT_RULE = "even-thinning-v1"


def estimate_tokens(text: str) -> int:
    """Estimated tokens of `text`: a token per digit or punctuation mark, `CHARS_PER_TOKEN`
    other characters a token (conservative for English text with time stamps)."""
    if not text:
        return 0
    single = sum(char in _SINGLE_TOKEN_CHARS for char in text)
    return single + math.ceil((len(text) - single) / CHARS_PER_TOKEN)


def evenly_spaced(n: int, fraction: float) -> list[int]:
    """Indices of an evenly spaced subset of `range(n)` holding about `fraction` of it."""
    if fraction >= 1.0:
        return list(range(n))
    return [i for i in range(n) if math.floor((i + 1) * fraction) > math.floor(i * fraction)]


def thin_evenly(costs: Sequence[int], structural: Sequence[bool], budget: int) -> list[int]:
    """The indices of the units kept within `budget` tokens, in film order.

    Args:
        costs: estimated tokens of each unit.
        structural: units kept first (scene headings) while they fit.
        budget: tokens available for the film.
    """
    if sum(costs) <= budget:
        return list(range(len(costs)))
    if budget <= 0:
        return []
    pinned = [i for i, s in enumerate(structural) if s]
    if sum(costs[i] for i in pinned) > budget // 2:
        pinned = []  # structure alone would crowd out the content: thin it with the rest
    others = [i for i in range(len(costs)) if i not in set(pinned)]
    room = budget - sum(costs[i] for i in pinned)
    kept = _largest_even_subset([costs[i] for i in others], room)
    return sorted(pinned + [others[j] for j in kept])


def _largest_even_subset(costs: Sequence[int], budget: int) -> list[int]:
    low, high, best = 0.0, 1.0, []
    for _ in range(40):  # bisection on the kept fraction; 40 steps resolve any film's units
        middle = (low + high) / 2
        chosen = evenly_spaced(len(costs), middle)
        if sum(costs[i] for i in chosen) <= budget:
            low, best = middle, chosen
        else:
            high = middle
    return best


def covered_ranges(spans: Sequence[tuple[float, float]], kept: Sequence[int]) -> list[list[float]]:
    """The time ranges of runs of consecutive kept units ([[start_s, end_s], ...]).

    Two kept units are one range when no unit between them was cut; units without times are
    skipped.
    """
    ranges: list[list[float]] = []
    previous = None
    for index in kept:
        start, end = spans[index]
        if start is None or end is None or start != start or end != end:  # None / NaN
            previous = index
            continue
        if ranges and previous == index - 1:
            ranges[-1][1] = max(ranges[-1][1], float(end))
        else:
            ranges.append([float(start), float(end)])
        previous = index
    return ranges
