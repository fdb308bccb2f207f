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


def resample_counts(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """B × n multiplicities: row b says how often each of n questions was drawn."""
    draws = rng.integers(0, n, size=(resamples, n))
    flat = draws + (np.arange(resamples) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n)


def bootstrap_means(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                    rng: np.random.Generator | None = None) -> np.ndarray:
    """Resampled column means of `values` (n questions × k columns, NaN = no score): B × k."""
    rng = rng or np.random.default_rng(DEFAULT_SEED)
    present = ~np.isnan(values)
    counts = resample_counts(rng, values.shape[0], resamples).astype(np.float64)
    totals = counts @ np.where(present, values, 0.0)
    weights = counts @ present.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return totals / weights


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Per-column percentile interval of bootstrap samples (NaN-safe)."""
    tail = (1 - level) / 2 * 100
    return (np.nanpercentile(samples, tail, axis=0),
            np.nanpercentile(samples, 100 - tail, axis=0))


def naive_bootstrap_means(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                          rng: np.random.Generator | None = None) -> np.ndarray:
    """The per-resample loop the vectorised form replaces (benchmark baseline; same result
    for complete columns given the same draws)."""
    rng = rng or np.random.default_rng(DEFAULT_SEED)
    n = values.shape[0]
    out = np.empty((resamples, values.shape[1]))
    for b in range(resamples):
        picked = values[rng.integers(0, n, size=n)]
        out[b] = np.nanmean(picked, axis=0)
    return out
