"""PlotTree's windowed centre search (pipelines.plottree.windowed) is exact: for leaf-level λ it
gives the same nearest centres and the same k-means clusters as comparing every node with every
centre under D^l (StoryVideoQA §5.1), and it steps aside where λ is small."""

from __future__ import annotations

import numpy as np
import pytest

from pipelines.plottree.condense import cluster_count, decay, plot_distance, plot_kmeans
from pipelines.plottree.windowed import windowed_assign
from tests.support.plottree_reference import full_search_kmeans
from tests.support.story_points import story_like


@pytest.mark.parametrize("n, seed", [(720, 1), (2000, 2), (3600, 3)])
def test_leaf_level_clusters_equal_the_full_search(n, seed):
    vectors, times = story_like(n, seed=seed)
    k, lam = cluster_count(n), decay(0)
    windowed = plot_kmeans(vectors, times, k, lam, n)
    assert np.array_equal(windowed, full_search_kmeans(vectors, times, k, lam, n))
    # clusters are numbered by their earliest leaf, and there are at most K of them
    firsts = [times[windowed == label].min() for label in range(windowed.max() + 1)]
    assert firsts == sorted(firsts) and windowed.max() + 1 <= k


def test_nearest_centres_equal_the_full_search_with_unusable_centres():
    vectors, times = story_like(1500, seed=4)
    rng = np.random.default_rng(5)
    picks = np.sort(rng.choice(1500, size=40, replace=False))
    centre_vectors, centre_times = vectors[picks], times[picks].copy()
    usable = rng.random(40) > 0.2
    lam = decay(0)
    got = windowed_assign(vectors, times, centre_vectors, centre_times, usable, lam, 1500)
    distance = plot_distance(vectors, times, centre_vectors, centre_times, lam, 1500)
    distance[:, ~usable] = np.inf
    assert got is not None
    assert np.array_equal(got, distance.argmin(axis=1))
    assert set(np.unique(got)) <= set(np.flatnonzero(usable))


def test_small_lambda_leaves_the_full_search_to_the_caller():
    vectors, times = story_like(720, seed=6)
    picks = np.arange(0, 720, 36)
    every = np.ones(len(picks), dtype=bool)
    lam = decay(1)  # ≈ 0.1: the time term cannot rule centres out
    assert windowed_assign(vectors, times, vectors[picks], times[picks], every, lam, 720) is None
    labels = plot_kmeans(vectors, times, len(picks), lam, 720)
    assert np.array_equal(labels, full_search_kmeans(vectors, times, len(picks), lam, 720))
