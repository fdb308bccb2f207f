"""Small stories for the asymmetry tracker, and replaying them."""

from __future__ import annotations

import hashlib

import numpy as np

from pipelines.beliefs.asymmetry.tom import StoryTrace
from pipelines.beliefs.tom.events import TomStory

AGENTS = ["Anna", "Ben", "Cara"]


def hashed(texts: list[str]) -> np.ndarray:
    """A stand-in for MiniLM: one fixed random unit vector per distinct text (cosine 1 for the
    same text, near 0 for different ones), so only the rule's equality and suffix parts act."""
    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        vector = np.random.default_rng(seed).normal(size=64)
        rows.append(vector / np.linalg.norm(vector))
    return np.array(rows)


def replay(*sentences: str) -> StoryTrace:
    story = TomStory("story-1", "test", list(sentences), [])
    return StoryTrace(story, hashed, AGENTS)


def rows_of(trace: StoryTrace, holder: str) -> list[dict]:
    return [r for r in trace.tracker.records() if r["holder"] == holder]


ABSENT_MOVE = (
    "Anna entered the kitchen.",
    "Ben entered the kitchen.",
    "The key is in the drawer.",
    "Anna exited the kitchen.",
    "Ben moved the key to the box.",
)
