"""Question analytics split into executor units (pipelines/qgen/analytics_scaled.py): the
near-duplicate pairs of row blocks and the embeddings of text batches, gathered in order,
are those computed in one piece (local executor; the Ray runs are in test_scale_llm.py)."""

from __future__ import annotations

import numpy as np

from pipelines.qgen.analytics import near_duplicate_pairs
from pipelines.qgen.analytics_scaled import executor_embedder, executor_pairs
from pipelines.scale import LocalExecutor


def _vectors(seed: int = 0) -> tuple[list[str], np.ndarray]:
    """40 unit vectors, every fourth a slight variation of the one before (near-duplicates)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(40):
        rows.append(rows[-1] + 0.2 * rng.normal(size=8) if i % 4 == 3 else rng.normal(size=8))
    vectors = np.array(rows)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [f"q{i:02d}" for i in range(40)], vectors.astype(np.float32)


def test_pairs_per_row_block_are_the_pairs_of_the_whole_matrix():
    ids, vectors = _vectors()
    whole = near_duplicate_pairs(ids, vectors, 0.8)
    blocks = executor_pairs(LocalExecutor(), rows=7)(ids, vectors, 0.8)  # 6 units, last short
    assert len(whole) >= 10  # the constructed near-duplicates, and some chance pairs
    assert [(p["question_a"], p["question_b"]) for p in blocks] == [
        (p["question_a"], p["question_b"]) for p in whole
    ]
    np.testing.assert_allclose(
        [p["cosine"] for p in blocks], [p["cosine"] for p in whole], rtol=0, atol=1e-4
    )


def test_embeddings_per_batch_are_the_vectors_of_one_batch_in_order():
    from pipelines.embeddings import embed_texts

    texts = [f"Why does character {i} keep the letter from scene {i % 3}?" for i in range(10)]
    texts[4] = "Who saw the lamp fall in the office?"
    batched = executor_embedder(LocalExecutor(), batch=4)(texts)  # 3 units: 4, 4, 2
    assert batched.shape == (10, 384)
    np.testing.assert_allclose(batched, embed_texts(texts), rtol=0, atol=1e-5)
    assert executor_embedder(LocalExecutor())([]).shape == (0, 384)
