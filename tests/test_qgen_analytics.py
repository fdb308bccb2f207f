"""Question analytics: near-duplicates, clusters, 2-D projection, Self-BLEU, opening frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipelines.qgen.analytics import (
    analyze_questions,
    clusters_of,
    near_duplicate_pairs,
    opening_frames,
    project_2d,
    self_bleu,
)


def test_self_bleu_of_identical_questions_is_100_and_of_disjoint_ones_near_0():
    same = ["At the bar, what does Tom know about the money?"] * 3
    assert self_bleu(same, 2) == pytest.approx(100.0)
    assert self_bleu(same, 4) == pytest.approx(100.0)
    disjoint = ["alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda mu"]
    assert self_bleu(disjoint, 2) < 5.0
    assert self_bleu(["only one"], 2) is None


def test_self_bleu_2_exceeds_self_bleu_4_on_shared_frames():
    texts = ["In the kitchen, what does Ann make of Bo's promise?",
             "At the pier, what does Cy make of Di's warning?",
             "On the train, what does Ed make of Flo's offer?"]
    assert self_bleu(texts, 2) > self_bleu(texts, 4) > 0


def test_opening_frames_skip_the_anchor_and_count_shares():
    texts = ["In the kitchen, what does Ann think?", "At the pier, what does Cy fear?",
             "On the train, how has Ed changed?"]
    frames = opening_frames(texts, 2)
    assert frames[0] == {"frame": "what does", "n_words": 2, "count": 2, "share": pytest.approx(2 / 3, abs=1e-4)}
    assert frames[1]["frame"] == "how has"


def test_near_duplicates_and_clusters_from_vectors():
    vectors = np.array([[1, 0], [0.99, 0.141], [0, 1], [-1, 0]], dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = ["a", "b", "c", "d"]
    pairs = near_duplicate_pairs(ids, vectors, 0.9)
    assert [(p["question_a"], p["question_b"]) for p in pairs] == [("a", "b")]
    clusters = {row["question_id"]: row for row in clusters_of(ids, pairs)}
    assert clusters["a"]["cluster_id"] == clusters["b"]["cluster_id"]
    assert clusters["a"]["cluster_size"] == 2 and clusters["c"]["cluster_size"] == 1
    assert clusters["c"]["cluster_id"] != clusters["d"]["cluster_id"]


def test_projection_uses_pca_for_tiny_sets_and_umap_otherwise():
    rng = np.random.default_rng(0)
    coords, method = project_2d(rng.normal(size=(3, 8)))
    assert method == "pca" and coords.shape == (3, 2)
    coords, method = project_2d(rng.normal(size=(12, 8)))
    assert method == "umap" and coords.shape == (12, 2) and np.isfinite(coords).all()


@pytest.mark.slow
def test_minilm_finds_the_paraphrase_pair():
    questions = pd.DataFrame({
        "question_id": ["q1", "q2", "q3", "q4", "q5", "q6"],
        "qtype": ["Q7", "Q7", "Q2", "Q2", "N2", "N2"],
        "text": [
            "At the railroad station, what does Delta Slim make of Stack's pitch?",
            "At the railway station, what does Delta Slim make of Stack's offer?",
            "In the courtyard corridor, when does Tremblay's view of Lawrence change?",
            "In the Harding nursery, what danger does Louise believe she faces?",
            "In the garage, how has Grace's view of Beau changed since they met?",
            "At the Chinese restaurant, what discoveries shaped Sandra's view of the case?",
        ],
    })
    analytics = analyze_questions(questions)
    pairs = {(p["question_a"], p["question_b"]) for p in analytics.pairs}
    assert pairs == {("q1", "q2")}
    assert len(analytics.points) == 6 and analytics.points[0]["model"] == "all-MiniLM-L6-v2+umap"
    assert len(analytics.points[0]["vector"]) == 384
    by_type = {row["qtype"]: row for row in analytics.diversity}
    assert by_type["*"]["n_questions"] == 6 and by_type["Q7"]["self_bleu_2"] > by_type["Q2"]["self_bleu_2"]
