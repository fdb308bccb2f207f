"""PlotTree's level clustering by the definition (StoryVideoQA §5.1): farthest-point seeds and
Lloyd steps comparing every node with every centre under D^l — the code before the windowed
search, kept as the reference the tests and benchmarks/bench_plottree_window.py compare with."""

from __future__ import annotations

import numpy as np

from pipelines.plottree.condense import _centres, plot_distance


def full_search_kmeans(vectors, times, k, lam, n_leaves, max_iter=30):
    """The definition: farthest-point seeds and Lloyd steps against every centre."""
    chosen = [int(np.argmin(times))]
    nearest = plot_distance(vectors, times, vectors[chosen], times[chosen], lam, n_leaves)[:, 0]
    for _ in range(1, k):
        chosen.append(int(np.argmax(nearest)))
        step = plot_distance(
            vectors, times, vectors[[chosen[-1]]], times[[chosen[-1]]], lam, n_leaves
        )
        nearest = np.minimum(nearest, step[:, 0])
    labels = plot_distance(vectors, times, vectors[chosen], times[chosen], lam, n_leaves).argmin(1)
    for _ in range(max_iter):
        cv, ct, nonempty = _centres(vectors, times, labels, k)
        distance = plot_distance(vectors, times, cv, ct, lam, n_leaves)
        distance[:, ~nonempty] = np.inf
        new = distance.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    first = {lab: times[labels == lab].min() for lab in np.unique(labels)}
    rank = {lab: r for r, lab in enumerate(sorted(first, key=first.get))}
    return np.array([rank[lab] for lab in labels])
