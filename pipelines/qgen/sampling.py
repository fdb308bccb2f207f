"""Sampling kept context-sets so questions spread across types, runtime, characters and scenes.

App. F.1: "We then sample the remaining context-sets so that questions spread across scenes,
characters, and runtime." The paper gives no procedure; ours is a greedy balanced draw: each
pick is the context-set whose type, fifth of the runtime, center and anchor scene have been
picked least so far (compared in that order), ties broken by a seeded hash so a run is
reproducible and a different seed gives a different sample.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

from pipelines.qgen.context_sets import ContextSet

FIFTHS = 5


def runtime_fifth(time_s: float | None, film_end: float | None) -> int:
    """0–4: which fifth of the runtime a time falls in (unknown times count as the first)."""
    if time_s is None or not film_end:
        return 0
    return min(FIFTHS - 1, max(0, int(FIFTHS * time_s / film_end)))


def _tie_break(seed: int, context_set_id: str) -> str:
    return hashlib.sha1(f"{seed}:{context_set_id}".encode()).hexdigest()


def sample_context_sets(
    context_sets: Sequence[ContextSet], n: int, film_end: float | None, seed: int = 0
) -> list[ContextSet]:
    """Pick up to `n` kept context-sets, balanced greedily (see module docstring).

    Args:
        context_sets: candidates (discarded ones are ignored).
        n: how many to pick.
        film_end: runtime in seconds, for the fifths.
        seed: tie-break seed.
    """
    pool = sorted(
        (cs for cs in context_sets if cs.kept), key=lambda cs: _tie_break(seed, cs.context_set_id)
    )
    counts = {key: Counter() for key in ("type", "fifth", "center", "scene")}
    picked: list[ContextSet] = []
    while pool and len(picked) < n:

        def load(cs: ContextSet) -> tuple[int, int, int, int]:
            fifth = runtime_fifth(cs.payload["anchor"].get("time_s"), film_end)
            return (
                counts["type"][cs.qtype],
                counts["fifth"][fifth],
                counts["center"][cs.center],
                counts["scene"][cs.anchor_scene],
            )

        best = min(pool, key=load)  # min() keeps the first of equals: the seeded order
        pool.remove(best)
        picked.append(best)
        counts["type"][best.qtype] += 1
        counts["fifth"][runtime_fifth(best.payload["anchor"].get("time_s"), film_end)] += 1
        counts["center"][best.center] += 1
        counts["scene"][best.anchor_scene] += 1
    return picked
