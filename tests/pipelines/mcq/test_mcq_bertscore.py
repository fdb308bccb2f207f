"""BERTScore on MiniLM equals the `bert-score` package on the same local model (within 1e-4)."""

from __future__ import annotations

import numpy as np
import pytest

from pipelines.embeddings import model_path
from pipelines.mcq.bertscore import bert_score, estimate_baseline, greedy_match

CANDIDATES = [
    "Just some guy from work.",
    "Creates a moment of peace and contemplation",
    "  Monica tells the others at Central Perk.  ",
    "The cat sat on the mat quietly while the dog barked outside at the mailman.",
    "He asks her to move; Leonard is annoyed.",
]
REFERENCES = [
    "Just some guy from work",
    "Loud noises and chaos",
    "How does Monica describe the man she is going out with to her friends at Central Perk?",
    "A dog barks.",
    "He defends his spot; Leonard is embarrassed.",
]


@pytest.mark.slow
@pytest.mark.parametrize("idf", [False, True])
def test_equals_the_bert_score_package(idf):
    bert_score_package = pytest.importorskip("bert_score")
    # nthreads=0: the package counts idf in a forked multiprocessing Pool otherwise, and a fork
    # from a test worker that already runs threads (a Ray session, torch) can deadlock the child
    # on a lock copied mid-use — it hung a CI run for good
    p, r, f = bert_score_package.score(
        CANDIDATES,
        REFERENCES,
        model_type=str(model_path()),
        num_layers=6,
        idf=idf,
        batch_size=8,
        nthreads=0,
    )
    ours = bert_score(CANDIDATES, REFERENCES, idf=idf)
    np.testing.assert_allclose(ours.precision, p.numpy(), atol=1e-4)
    np.testing.assert_allclose(ours.recall, r.numpy(), atol=1e-4)
    np.testing.assert_allclose(ours.f1, f.numpy(), atol=1e-4)


def test_identical_sentences_score_one_and_f1_is_symmetric():
    same = bert_score(["Ross and Monica are siblings."], ["Ross and Monica are siblings."])
    assert same.f1[0] == pytest.approx(1.0, abs=1e-5)
    forward = bert_score(CANDIDATES[:2], REFERENCES[:2])
    backward = bert_score(REFERENCES[:2], CANDIDATES[:2])
    np.testing.assert_allclose(forward.precision, backward.recall, atol=1e-6)
    np.testing.assert_allclose(forward.f1, backward.f1, atol=1e-6)


def test_greedy_match_by_hand():
    # Two candidate tokens, one reference token; weights zero out the first (a special token).
    cand = np.array([[1.0, 0.0], [0.6, 0.8]])
    ref = np.array([[0.0, 1.0]])
    p, r, f = greedy_match(cand, np.array([0.0, 1.0]), ref, np.array([1.0]))
    assert p == pytest.approx(0.8) and r == pytest.approx(0.8) and f == pytest.approx(0.8)
    assert greedy_match(cand, np.zeros(2), ref, np.ones(1)) == (0.0, 0.0, 0.0)


def test_empty_sentence_scores_zero_and_baseline_rescales():
    scores = bert_score(["", "a reply"], ["a reference", "a reply"])
    assert scores.f1[0] == 0.0 and scores.f1[1] == pytest.approx(1.0, abs=1e-5)
    baseline = estimate_baseline(CANDIDATES + REFERENCES, n_pairs=40)
    assert all(0.0 < b < 1.0 for b in baseline)
    rescaled = bert_score(["a reply"], ["a reply"], baseline=baseline)
    assert rescaled.f1[0] == pytest.approx(1.0, abs=1e-4)  # (1 - b) / (1 - b)
    with pytest.raises(ValueError):
        bert_score(["one"], [])
