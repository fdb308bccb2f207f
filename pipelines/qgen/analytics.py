"""Analytics for sanity-checking a set of questions (the Question Lab page reads them).

- Near-duplicates: MiniLM sentence embeddings, pairs at cosine ≥ `NEAR_DUPLICATE_COSINE`, and
  clusters = connected components of that pair graph.
- A 2-D projection (UMAP; PCA below `UMAP_MIN_POINTS`, where UMAP's neighbour graph is
  degenerate) stored with the run in `embeddings`, so the page plots without recomputing. The
  method is recorded in the `model` column ("all-MiniLM-L6-v2+umap" / "+pca").
- Diversity per type: Self-BLEU-2/4 in percent, as StoryMindv2 Table 2 reports it (each
  question scored by BLEU against all other questions of its type as references, averaged;
  Zhu et al. 2018's definition), and the most frequent opening frames — Table 23 of LF-VideoQA
  warns "VARY THE FRAME. If every question of a type opens the same way, the type is the answer
  key." Frames are the first n words of the question body (the anchor phrase removed), since
  the anchor varies by design and the frame is what follows it.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pipelines.qgen.question_shape import question_body
from pipelines.qgen.text import words

# MiniLM cosine at or above which two questions are near-duplicates. Our choice (no paper gives
# one): a two-word paraphrase of a released question ("railroad station ... pitch" -> "railway
# station ... offer") scores 0.81, while same-frame questions about different people and places
# score 0.1–0.45 (measured in tests/pipelines/qgen/test_qgen_analytics.py).
NEAR_DUPLICATE_COSINE = 0.8
UMAP_MIN_POINTS = 6
FRAME_WORDS = (2, 3)
TOP_FRAMES = 10


@dataclass
class QuestionAnalytics:
    """Rows for the analytics tables of one run (without run_id)."""

    pairs: list[dict] = field(default_factory=list)
    clusters: list[dict] = field(default_factory=list)
    points: list[dict] = field(default_factory=list)
    diversity: list[dict] = field(default_factory=list)
    frames: list[dict] = field(default_factory=list)


def near_duplicate_pairs(
    ids: Sequence[str], vectors: np.ndarray, threshold: float = NEAR_DUPLICATE_COSINE
) -> list[dict]:
    """Pairs (a < b by position) whose unit vectors have cosine ≥ threshold."""
    if len(ids) < 2:
        return []
    similarity = vectors @ vectors.T
    rows, cols = np.where(np.triu(similarity, k=1) >= threshold)
    return [
        {"question_a": ids[i], "question_b": ids[j], "cosine": round(float(similarity[i, j]), 4)}
        for i, j in zip(rows, cols)
    ]


def clusters_of(ids: Sequence[str], pairs: Sequence[dict]) -> list[dict]:
    """Connected components of the near-duplicate graph; singletons are clusters of size 1."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    index = {qid: i for i, qid in enumerate(ids)}
    a = [index[p["question_a"]] for p in pairs]
    b = [index[p["question_b"]] for p in pairs]
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(len(ids), len(ids)))
    _, labels = connected_components(graph, directed=False)
    sizes = Counter(labels.tolist())
    return [
        {"question_id": qid, "cluster_id": int(labels[i]), "cluster_size": sizes[labels[i]]}
        for i, qid in enumerate(ids)
    ]


@functools.cache
def _umap_with_jit_cache():
    """The `umap` module, with numba's on-disk cache turned on for its compiled functions.

    umap-learn marks few of its numba functions `cache=True`, so every new process (a
    generation job, the CLI, a test worker) compiled the rest again on its first projection:
    ~20 s of CPU for a dozen points. `Dispatcher.enable_caching()` (numba's own switch behind
    `cache=True`) keeps each compiled function next to its source, or under `NUMBA_CACHE_DIR`
    where that folder is read-only; numba checks the source file's stamp, so an upgraded
    umap-learn compiles afresh. The projection itself is unchanged.
    """
    import umap
    import umap.distances
    import umap.layouts
    import umap.umap_
    import umap.utils
    from numba.core.registry import CPUDispatcher

    for module in (umap.umap_, umap.layouts, umap.utils, umap.distances):
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                value.enable_caching()
    return umap


def project_2d(vectors: np.ndarray, seed: int = 0) -> tuple[np.ndarray, str]:
    """A 2-D projection of the vectors and the method used ("umap" or "pca")."""
    n = len(vectors)
    if n == 0:
        return np.zeros((0, 2)), "none"
    if n < UMAP_MIN_POINTS:
        from sklearn.decomposition import PCA

        if n == 1:
            return np.zeros((1, 2)), "pca"
        coords = PCA(n_components=min(2, n), random_state=seed).fit_transform(vectors)
        return np.pad(coords, ((0, 0), (0, 2 - coords.shape[1]))), "pca"
    umap = _umap_with_jit_cache()
    reducer = umap.UMAP(
        n_components=2,
        n_neighbors=min(15, n - 1),
        metric="cosine",
        random_state=seed,
        n_jobs=1,
        init="random" if n < 20 else "spectral",
    )
    return reducer.fit_transform(vectors), "umap"


def self_bleu(texts: Sequence[str], max_n: int) -> float | None:
    """Self-BLEU-n in percent: mean BLEU-n of each text against all others (None if < 2)."""
    # imported when used: `import nltk` loads scikit-learn and scipy, seconds the pages that
    # import this module should not pay
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    tokens = [[w.lower() for w in words(text)] for text in texts]
    if len(tokens) < 2:
        return None
    smooth = SmoothingFunction().method1
    weights = tuple([1.0 / max_n] * max_n)
    scores = [
        sentence_bleu(
            tokens[:i] + tokens[i + 1 :], hypothesis, weights=weights, smoothing_function=smooth
        )
        for i, hypothesis in enumerate(tokens)
    ]
    return round(100.0 * float(np.mean(scores)), 2)


def opening_frames(texts: Sequence[str], n_words: int, top: int = TOP_FRAMES) -> list[dict]:
    """The most frequent first `n_words` of the question bodies, with counts and shares."""
    frames = Counter(
        " ".join(w.lower() for w in words(question_body(text))[:n_words]) for text in texts
    )
    total = sum(frames.values())
    return [
        {"frame": frame, "n_words": n_words, "count": count, "share": round(count / total, 4)}
        for frame, count in frames.most_common(top)
        if frame
    ]


def diversity_rows(questions: pd.DataFrame) -> tuple[list[dict], list[dict]]:
    """Self-BLEU and opening-frame rows per type, plus '*' for all questions together."""
    groups = [("*", questions)] + list(questions.groupby("qtype", sort=True))
    diversity, frames = [], []
    for qtype, group in groups:
        texts = group["text"].tolist()
        diversity.append(
            {
                "qtype": qtype,
                "n_questions": len(texts),
                "self_bleu_2": self_bleu(texts, 2),
                "self_bleu_4": self_bleu(texts, 4),
            }
        )
        for n_words in FRAME_WORDS:
            frames += [{"qtype": qtype, **row} for row in opening_frames(texts, n_words)]
    return diversity, frames


def analyze_questions(
    questions: pd.DataFrame, threshold: float = NEAR_DUPLICATE_COSINE, embed=None, pairs_of=None
) -> QuestionAnalytics:
    """All analytics for questions with columns question_id, qtype, text.

    Args:
        questions: the question set.
        threshold: near-duplicate cosine threshold.
        embed: texts -> unit vectors; defaults to the shared MiniLM encoder.
        pairs_of: (ids, vectors, threshold) -> pairs; defaults to `near_duplicate_pairs`
            (pipelines/qgen/analytics_scaled.py passes both on an executor).
    """
    from pipelines.embeddings import MODEL_NAME, embed_texts

    ids = questions["question_id"].tolist()
    vectors = (embed or embed_texts)(questions["text"].tolist())
    pairs = (pairs_of or near_duplicate_pairs)(ids, vectors, threshold)
    coords, method = project_2d(vectors)
    points = [
        {
            "item_kind": "question",
            "item_id": qid,
            "model": f"{MODEL_NAME}+{method}",
            "vector": vectors[i].tolist(),
            "x": float(coords[i, 0]),
            "y": float(coords[i, 1]),
        }
        for i, qid in enumerate(ids)
    ]
    diversity, frames = diversity_rows(questions)
    return QuestionAnalytics(
        pairs=pairs,
        clusters=clusters_of(ids, pairs),
        points=points,
        diversity=diversity,
        frames=frames,
    )


def write_analytics(cursor, run_id: str, analytics: QuestionAnalytics) -> None:
    """Insert the analytics rows of a run (inside the caller's transaction)."""
    from data_access.store import append_rows
    from data_access.tables import qgen_records

    for table, rows in (
        ("question_near_duplicates", analytics.pairs),
        ("question_clusters", analytics.clusters),
        ("embeddings", analytics.points),
        ("question_diversity", analytics.diversity),
        ("question_opening_frames", analytics.frames),
    ):
        append_rows(
            cursor, table, [{"run_id": run_id, **row} for row in rows], qgen_records.COLUMNS[table]
        )


def analyze_stored_questions(store, run_id: str, question_ids: Sequence[str]) -> QuestionAnalytics:
    """Compute analytics for stored questions and store them under an existing run."""
    from data_access.tables.qgen_records import select_questions

    questions = select_questions(store, {"question_id": list(question_ids)})
    analytics = analyze_questions(questions)
    with store.transaction() as cursor:
        write_analytics(cursor, run_id, analytics)
    return analytics
