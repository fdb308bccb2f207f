"""Hierarchical condensation (StoryVideoQA §5.1): cluster level l into K^l groups, condense each.

- Distance: D^l(n_i, n_j) = λ(l)·|t_i − t_j|/F + (1 − cos(e_i, e_j)), F = number of leaves,
  t = leaf index (a parent's t is the min of its children's, below).
- K^l = max(1, ⌊β·|N^l|⌋), β = 1/36 (§6.1).
- λ(l) = 1 / (α·l + ε), α = 10 (§6.1), ε = 0.01. The paper only shows the decay as a curve
  (Figure 15) and says lower levels should favour temporal consistency and higher levels
  semantic similarity, with larger α better; this hyperbolic form is the one in the authors'
  released plotTree.py (`temporal_decay`): λ(0) = 100 makes leaf clusters contiguous stretches
  of time, λ(1) ≈ 0.1 lets scenes far apart but alike join.
- Clustering: k-means under D^l (Lloyd iterations: assign each node to the nearest centre under
  D^l; a centre is the normalised mean embedding and the mean time of its members), seeded
  farthest-point under D^l (the earliest node, then the node farthest from all seeds so far),
  so the result is deterministic and the seeds follow λ: spread in time at the leaves, spread
  in meaning higher up.
- Parent time: the paper writes t^{l+1} = min(t_i) and calls it "the latest time"; we take the
  min (the earliest child; also what the released code does), and store start_s = min child
  start and end_s = max child end, so nothing is lost either way.
- Each cluster's children are sorted by time and condensed by `summarise` (the gateway, or the
  offline extractive summary below); the loop ends with a single root = the whole storyline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from pipelines.plottree.windowed import windowed_assign, windowed_seed_update

ALPHA = 10.0
BETA = 1 / 36
EPSILON = 0.01
EXTRACTIVE_BACKEND = "extractive-centroid"


def decay(level: int, alpha: float = ALPHA, epsilon: float = EPSILON) -> float:
    """λ(l) = 1 / (α·l + ε)."""
    return 1.0 / (alpha * level + epsilon)


def cluster_count(n_nodes: int, beta: float = BETA) -> int:
    """K^l = max(1, ⌊β·|N^l|⌋)."""
    return max(1, int(np.floor(beta * n_nodes + 1e-9)))


def plot_distance(
    vectors: np.ndarray,
    times: np.ndarray,
    centre_vectors: np.ndarray,
    centre_times: np.ndarray,
    lam: float,
    n_leaves: int,
) -> np.ndarray:
    """D^l between every node (rows) and every centre (columns); vectors are unit length."""
    temporal = lam * np.abs(times[:, None] - centre_times[None, :]) / n_leaves
    return temporal + (1.0 - vectors @ centre_vectors.T)


def _centres(vectors, times, labels, k):
    order = np.argsort(labels, kind="stable")
    counts = np.bincount(labels, minlength=k)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    nonempty = counts > 0
    sums = np.zeros((k, vectors.shape[1]), dtype=np.float64)
    tsum = np.zeros(k)
    sums[nonempty] = np.add.reduceat(vectors[order], starts[nonempty], axis=0)
    tsum[nonempty] = np.add.reduceat(times[order], starts[nonempty])
    norms = np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return (sums / norms).astype(np.float32), tsum / np.maximum(counts, 1), nonempty


def _farthest_point_seeds(vectors, times, k, lam, n_leaves):
    """Deterministic k-means++-like seeds under D^l: the earliest node, then repeatedly the
    node farthest (under D^l) from every seed so far."""
    chosen = [int(np.argmin(times))]
    nearest = plot_distance(vectors, times, vectors[chosen], times[chosen], lam, n_leaves)[:, 0]
    node_order = np.argsort(times, kind="stable")
    sorted_times = times[node_order]
    for _ in range(1, k):
        nxt = int(np.argmax(nearest))
        chosen.append(nxt)
        windowed_seed_update(nearest, vectors, times, nxt, lam, n_leaves, node_order, sorted_times)
    return vectors[chosen], times[chosen]


def _nearest_centre(vectors, times, centre_vectors, centre_times, usable, lam, n_leaves):
    """Each node's nearest usable centre under D^l: the exact windowed search
    (pipelines.plottree.windowed) where λ makes time decide, else every centre."""
    labels = windowed_assign(vectors, times, centre_vectors, centre_times, usable, lam, n_leaves)
    if labels is not None:
        return labels
    distance = plot_distance(vectors, times, centre_vectors, centre_times, lam, n_leaves)
    distance[:, ~usable] = np.inf
    return distance.argmin(axis=1)


def plot_kmeans(
    vectors: np.ndarray, times: np.ndarray, k: int, lam: float, n_leaves: int, max_iter: int = 30
) -> np.ndarray:
    """Cluster labels 0..k'-1 (empty clusters dropped, renumbered by earliest member).

    One BLAS thread: the products are small (a window of centres per block of nodes), where
    OpenBLAS's thread hand-offs cost more CPU than they save (2x on a loaded 2-core machine),
    and a fixed summation order keeps near-ties from flipping between runs.
    """
    with threadpool_limits(1):
        return _plot_kmeans(vectors, times, k, lam, n_leaves, max_iter)


def _plot_kmeans(vectors, times, k, lam, n_leaves, max_iter):
    centre_vectors, centre_times = _farthest_point_seeds(vectors, times, k, lam, n_leaves)
    every = np.ones(len(centre_times), dtype=bool)
    labels = _nearest_centre(vectors, times, centre_vectors, centre_times, every, lam, n_leaves)
    for _ in range(max_iter):
        centre_vectors, centre_times, nonempty = _centres(vectors, times, labels, k)
        new = _nearest_centre(vectors, times, centre_vectors, centre_times, nonempty, lam, n_leaves)
        if np.array_equal(new, labels):
            break
        labels = new
    first_time = {lab: times[labels == lab].min() for lab in np.unique(labels)}
    rank = {lab: r for r, lab in enumerate(sorted(first_time, key=first_time.get))}
    return np.array([rank[lab] for lab in labels], dtype=np.int64)


def extractive_summary(
    summaries: list[str], vectors: np.ndarray, keep: int = 3, max_chars: int = 700
) -> str:
    """Offline condensation: the `keep` children nearest the cluster's mean embedding,
    de-duplicated, in chronological order (inputs are already chronological)."""
    centre = vectors.mean(axis=0)
    order = np.argsort(-(vectors @ centre), kind="stable")
    chosen, seen = [], set()
    for i in order:
        text = summaries[i].strip()
        if text and text not in seen:
            chosen.append(int(i))
            seen.add(text)
        if len(chosen) == keep:
            break
    text = " … ".join(summaries[i].strip() for i in sorted(chosen))
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


@dataclass
class Node:
    """One PlotTree node (leaf or parent)."""

    node_id: str
    level: int
    t: float
    start_s: float
    end_s: float
    leaf_indices: list[int]
    summary: str
    summary_backend: str
    characters: list[str]
    children: list[str] = field(default_factory=list)
    parent_id: str | None = None


# summarise(list of clusters, each a chronological list of child Nodes, and their vectors)
#   -> (summaries, backend)
Summariser = Callable[[list[list[Node]], list[np.ndarray]], tuple[list[str], str]]
Embedder = Callable[[list[str]], np.ndarray]


def extractive_summariser(clusters: list[list[Node]], vectors: list[np.ndarray]):
    """The offline Summariser (labelled `extractive-centroid`)."""
    return (
        [
            extractive_summary([n.summary for n in nodes], vecs)
            for nodes, vecs in zip(clusters, vectors)
        ],
        EXTRACTIVE_BACKEND,
    )


def _parent(node_id: str, level: int, children: list[Node], summary: str, backend: str) -> Node:
    leaves = sorted({i for c in children for i in c.leaf_indices})
    people = list(dict.fromkeys(p for c in children for p in c.characters))
    node = Node(
        node_id,
        level,
        min(c.t for c in children),
        min(c.start_s for c in children),
        max(c.end_s for c in children),
        leaves,
        summary,
        backend,
        people,
        [c.node_id for c in children],
    )
    for child in children:
        child.parent_id = node_id
    return node


def condense_level(
    nodes: list[Node],
    vectors: np.ndarray,
    level: int,
    n_leaves: int,
    prefix: str,
    summarise: Summariser,
    embed: Embedder,
    alpha: float = ALPHA,
    beta: float = BETA,
) -> tuple[list[Node], np.ndarray]:
    """Level l -> level l+1: cluster with D^l into K^l groups and condense each group."""
    k = cluster_count(len(nodes), beta)
    times = np.array([n.t for n in nodes], dtype=float)
    labels = (
        np.zeros(len(nodes), dtype=np.int64)
        if k == 1
        else plot_kmeans(vectors, times, k, decay(level, alpha), n_leaves)
    )
    groups = []
    for label in range(labels.max() + 1):
        members = sorted(np.flatnonzero(labels == label), key=lambda i: (times[i], i))
        groups.append(members)
    clusters = [[nodes[i] for i in g] for g in groups]
    summaries, backend = summarise(clusters, [vectors[g] for g in groups])
    parents = [
        _parent(f"{prefix}L{level + 1}-{j:05d}", level + 1, c, s, backend)
        for j, (c, s) in enumerate(zip(clusters, summaries))
    ]
    return parents, embed([p.summary for p in parents])


def build_tree(
    leaves: list[Node],
    leaf_vectors: np.ndarray,
    prefix: str,
    summarise: Summariser,
    embed: Embedder,
    alpha: float = ALPHA,
    beta: float = BETA,
) -> tuple[list[Node], np.ndarray]:
    """All nodes (leaves first, root last) and their vectors, condensing until one root."""
    all_nodes, all_vectors = list(leaves), [leaf_vectors]
    level_nodes, level_vectors, level = list(leaves), leaf_vectors, 0
    while len(level_nodes) > 1 or level == 0:
        level_nodes, level_vectors = condense_level(
            level_nodes, level_vectors, level, len(leaves), prefix, summarise, embed, alpha, beta
        )
        all_nodes.extend(level_nodes)
        all_vectors.append(level_vectors)
        level += 1
    return all_nodes, np.vstack(all_vectors)
