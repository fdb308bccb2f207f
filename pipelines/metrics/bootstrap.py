"""Bootstrap 95% intervals by resampling questions (LF-VideoQA §3.3 reports question means).

Vectorised: one resample = a vector of per-question multiplicities (how often each question was
drawn). For a pool of n questions and B resamples the multiplicities form a B × n count matrix
(drawn with `integers` + `bincount`), and every resampled mean of every setting and metric is
one matrix product: means = (counts @ values) / (counts @ present). Settings that answered
every question of the pool get exactly the classic bootstrap mean; a setting that skipped
some questions gets the ratio estimator over the questions it answered.
"""

from __future__ import annotations

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


def resample_counts(
    rng: np.random.Generator, n: int, resamples: int, dtype=np.float32
) -> np.ndarray:
    """B × n multiplicities: row b says how often each of n questions was drawn.

    Drawn in blocks of rows so the index and count buffers stay cache-sized; the result is in
    `dtype` directly (float32 holds counts ≤ n exactly), ready for the matrix product.
    """
    out = np.empty((resamples, n), dtype=dtype)
    block = max(1, min(resamples, 2_000_000 // max(n, 1)))
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        draws = rng.integers(0, n, size=(rows, n), dtype=np.int64)
        draws += (np.arange(rows, dtype=np.int64) * n)[:, None]
        out[start : start + rows] = np.bincount(draws.ravel(), minlength=rows * n).reshape(rows, n)
    return out


def bootstrap_means(
    values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Resampled column means of `values` (n questions × k columns, NaN = no score): B × k."""
    rng = rng or np.random.default_rng(DEFAULT_SEED)
    present = ~np.isnan(values)
    # float32 holds the counts exactly and halves the product's memory traffic; sums of
    # ≤ 10^4 scores in [0, 1] keep ~1e-6 relative precision, far below CI widths.
    counts = resample_counts(rng, values.shape[0], resamples)
    totals = (counts @ np.where(present, values, 0.0).astype(np.float32)).astype(np.float64)
    # Columns scored on every question: the divisor is n itself, no second product needed.
    weights = np.full(values.shape[1], float(values.shape[0]))
    gaps = ~present.all(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = totals / weights
        if gaps.any():
            means[:, gaps] = totals[:, gaps] / (counts @ present[:, gaps].astype(np.float32))
    return means


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Per-column percentile interval of bootstrap samples (NaN-safe)."""
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    gaps = np.isnan(samples).any(axis=0)  # rare: resamples that drew no scored question
    if gaps.any():
        low[gaps], high[gaps] = np.nanpercentile(samples[:, gaps], [tail, 100 - tail], axis=0)
    return low, high


def naive_bootstrap_means(
    values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator | None = None
) -> np.ndarray:
    """The per-resample loop the vectorised form replaces (benchmark baseline; same result
    for complete columns given the same draws)."""
    rng = rng or np.random.default_rng(DEFAULT_SEED)
    n = values.shape[0]
    out = np.empty((resamples, values.shape[1]))
    for b in range(resamples):
        picked = values[rng.integers(0, n, size=n)]
        out[b] = np.nanmean(picked, axis=0)
    return out
