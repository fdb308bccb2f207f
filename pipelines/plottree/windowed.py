"""Exact nearest-centre search for PlotTree's k-means under D^l, restricted to a time window.

D^l(n, c) = λ(l)·|t_n − t_c|/F + (1 − cos(e_n, e_c)) (StoryVideoQA §5.1). The cosine term is never
negative, so a centre whose time term alone exceeds a distance already found for node n can
never be n's nearest. With K = ⌊|N|/36⌋ centres (§6.1) comparing every node with every centre
costs |N|²/36 distance rows per Lloyd iteration (docs/SCALE.md); at the leaves λ(0) = 100, so
the time term grows by 100/F per leaf of separation and only the centres a few dozen leaves
away can win. This module finds, for each node, the distance u to its nearest centre *in time*,
and then searches only the centres within |t_n − t_c| ≤ u·F/λ: the same argmin as the full
search (ties aside: equal distances go to the lowest centre number, as `argmin` does), at
O(|N|·w) for a window of w centres. Where λ is small (the upper levels, λ(1) ≈ 0.1) the window
spans every centre and the caller's full search is used unchanged.
"""

from __future__ import annotations

import numpy as np

BLOCK = 1024  # nodes per distance block: one matrix product against the block's window
SLACK = 1e-4  # float32 rounding of 1 − cos may dip below 0; widen the window by this much
FULL_SEARCH_SHARE = 0.5  # windows wider than this share of the centres: search them all


def _time_term(lam: float, n_leaves: int, dt: np.ndarray) -> np.ndarray:
    return lam * np.abs(dt) / n_leaves


def _distance_rows(vectors, times, centre_vectors, centre_times, lam, n_leaves) -> np.ndarray:
    # the same expression as condense.plot_distance, on a block of nodes and a run of centres
    temporal = lam * np.abs(times[:, None] - centre_times[None, :]) / n_leaves
    return temporal + (1.0 - vectors @ centre_vectors.T)


def windowed_assign(
    vectors: np.ndarray,
    times: np.ndarray,
    centre_vectors: np.ndarray,
    centre_times: np.ndarray,
    usable: np.ndarray,
    lam: float,
    n_leaves: int,
) -> np.ndarray | None:
    """Each node's nearest usable centre under D^l, or None when the window would span most
    centres (then the full search is as cheap and the caller runs it)."""
    ids = np.flatnonzero(usable)
    order = ids[np.argsort(centre_times[ids], kind="stable")]
    sorted_t = centre_times[order]
    pos = np.clip(np.searchsorted(sorted_t, times), 1, max(len(order) - 1, 1))
    before, after = order[np.maximum(pos - 1, 0)], order[np.minimum(pos, len(order) - 1)]
    nearest_in_time = np.where(
        np.abs(times - centre_times[before]) <= np.abs(times - centre_times[after]), before, after
    )
    bound = _time_term(lam, n_leaves, times - centre_times[nearest_in_time]) + (
        1.0 - np.einsum("ij,ij->i", vectors, centre_vectors[nearest_in_time])
    )
    reach = (bound + SLACK) * n_leaves / lam  # |t_n − t_c| beyond this cannot win
    lo = np.searchsorted(sorted_t, times - reach, side="left")
    hi = np.searchsorted(sorted_t, times + reach, side="right")
    if np.median(hi - lo) > FULL_SEARCH_SHARE * len(order):
        return None
    labels = np.empty(len(times), dtype=np.int64)
    node_order = np.argsort(times, kind="stable")
    for start in range(0, len(node_order), BLOCK):
        block = node_order[start : start + BLOCK]
        window = order[lo[block].min() : hi[block].max()]
        distance = _distance_rows(
            vectors[block],
            times[block],
            centre_vectors[window],
            centre_times[window],
            lam,
            n_leaves,
        )
        best = distance.min(axis=1, keepdims=True)
        # ties go to the lowest centre number, as the full search's argmin gives them
        labels[block] = np.where(distance == best, window[None, :], np.iinfo(np.int64).max).min(
            axis=1
        )
    return labels


def windowed_seed_update(
    nearest: np.ndarray,
    vectors: np.ndarray,
    times: np.ndarray,
    seed: int,
    lam: float,
    n_leaves: int,
    node_order: np.ndarray,
    sorted_times: np.ndarray,
) -> None:
    """`nearest = min(nearest, D^l(·, seed))` in place, computed only for the nodes close enough
    in time to the new seed to get nearer (the time term alone bounds D^l from below)."""
    reach = (nearest.max() + SLACK) * n_leaves / lam
    lo = np.searchsorted(sorted_times, times[seed] - reach, side="left")
    hi = np.searchsorted(sorted_times, times[seed] + reach, side="right")
    near = node_order[lo:hi]
    step = _distance_rows(
        vectors[near], times[near], vectors[[seed]], times[[seed]], lam, n_leaves
    )[:, 0]
    nearest[near] = np.minimum(nearest[near], step)
