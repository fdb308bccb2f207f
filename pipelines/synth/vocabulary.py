"""The random words a synthetic dataset is written in: content that exercises sizes and shapes,
never meaning (every synthetic dataset is labelled `synthetic`).
"""

from __future__ import annotations

import numpy as np

WORDS = [
    "letter",
    "key",
    "door",
    "night",
    "train",
    "promise",
    "secret",
    "money",
    "gun",
    "photo",
    "plan",
    "truth",
    "lie",
    "brother",
    "sister",
    "house",
    "car",
    "station",
    "river",
    "party",
    "office",
    "doctor",
    "police",
    "ring",
    "map",
    "phone",
    "debt",
    "deal",
    "warning",
    "fire",
    "ship",
    "storm",
    "garden",
    "church",
    "bridge",
    "window",
    "knife",
    "book",
    "song",
    "dance",
    "coffee",
    "market",
    "road",
    "shelter",
]
SYLLABLES = [
    "al",
    "an",
    "ar",
    "bel",
    "cor",
    "da",
    "el",
    "fa",
    "gor",
    "ha",
    "is",
    "jo",
    "ka",
    "lu",
    "ma",
    "ne",
    "or",
    "pa",
    "ra",
    "sa",
    "ti",
    "vo",
    "wen",
    "ya",
]


def random_texts(rng: np.random.Generator, n_texts: int, length: int) -> list[str]:
    """`n_texts` texts of `length` random words each."""
    picks = rng.integers(0, len(WORDS), size=(n_texts, length))
    vocabulary = np.array(WORDS)
    return [" ".join(row) for row in vocabulary[picks]]


def random_names(rng: np.random.Generator, n: int) -> list[str]:
    """`n` distinct two-syllable names."""
    names: list[str] = []
    while len(names) < n:
        name = "".join(rng.choice(SYLLABLES, size=2)).capitalize()
        if name not in names:
            names.append(name)
    return names
