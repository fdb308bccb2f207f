"""Points shaped like a film's leaves, for the windowed k-means."""

from __future__ import annotations

import numpy as np


def story_like(n: int, dim: int = 24, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors drifting through a few topics over time, with noise (leaf-like)."""
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(6, dim))
    which = (np.arange(n) * 6 // n + rng.integers(0, 2, n)) % 6
    vectors = topics[which] + 0.8 * rng.normal(size=(n, dim))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32), np.arange(n, dtype=np.float64)
