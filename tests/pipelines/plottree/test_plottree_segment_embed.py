"""Segment-pooled PlotTree node vectors: each distinct segment encoded once, composed by tokens."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipelines.plottree.condense import extractive_summary
from pipelines.plottree.segment_embed import SegmentEmbedder, split_segments
from tests.support.plottree_film import FILM, hashed_embed, write_fixture_film

LEAF = "Office: Jake reads the letter. Dialogue: Where were you? Characters: Jake, Evelyn."


class CountingEncoder:
    """hashed_embed that records every text it was asked to encode."""

    def __init__(self):
        self.seen: list[str] = []

    def __call__(self, texts):
        self.seen.extend(texts)
        return hashed_embed(texts)


def word_counts(segments):
    return [len(s.split()) + 2 for s in segments]  # + [CLS]/[SEP], like MiniLM


def test_split_segments_at_dialogue_cast_and_extractive_joins():
    assert split_segments(LEAF) == [
        "Office: Jake reads the letter.",
        "Dialogue: Where were you?",
        "Characters: Jake, Evelyn.",
    ]
    assert split_segments("(no dialogue)") == ["(no dialogue)"]
    assert split_segments("") == [""]
    parent = "Kitchen: tea. … Harbour: boats. Dialogue: I took the key."
    assert split_segments(parent) == [
        "Kitchen: tea.",
        "Harbour: boats.",
        "Dialogue: I took the key.",
    ]


def test_each_segment_is_encoded_once_and_parents_reuse_children():
    encoder = CountingEncoder()
    embed = SegmentEmbedder(encoder, word_counts)
    leaves = [LEAF, LEAF.replace("Where were you?", "Nowhere."), LEAF]
    vectors = embed(leaves)
    assert vectors.shape == (3, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert sorted(encoder.seen) == sorted(set(encoder.seen)) and len(encoder.seen) == 4
    parent = extractive_summary(leaves[:2], vectors[:2])  # joins with " … "
    before = len(encoder.seen)
    embed([parent])
    assert len(encoder.seen) == before  # all segments already known
    assert embed.segments_encoded == 4


def test_vector_is_the_token_weighted_mean_of_segment_vectors():
    embed = SegmentEmbedder(hashed_embed, word_counts)
    [vector] = embed([LEAF])
    segments = split_segments(LEAF)
    expected = sum(n * v for n, v in zip(word_counts(segments), hashed_embed(segments)))
    assert np.allclose(vector, expected / np.linalg.norm(expected), atol=1e-6)
    assert np.allclose(embed([segments[0]])[0], hashed_embed([segments[0]])[0], atol=1e-6)
    assert embed([]).shape == (0, 64)


def test_minilm_segment_vectors_stay_close_to_whole_text_vectors():
    from pipelines.embeddings import embed_texts

    texts = [
        LEAF,
        "Harbour: Fishing boats rock in the harbour. Dialogue: I took the spare key. "
        "Characters: Cara.",
        "Lamp Room: The great lamp turns. Characters: Ann, Cara.",
    ]
    pooled = SegmentEmbedder()(texts)
    whole = embed_texts(texts)
    cosines = (pooled * whole).sum(axis=1)
    assert (cosines > 0.8).all() and cosines.mean() > 0.88


def test_build_records_the_node_embedding_and_offers_full_text(store):
    from pipelines.plottree.build import build_film_tree

    write_fixture_film(store)
    pooled = build_film_tree(store, FILM, leaf_seconds=5.0)
    whole = build_film_tree(store, FILM, leaf_seconds=5.0, node_embedding="full-text")
    params = {
        run: json.loads(store.scalar("SELECT params FROM runs WHERE run_id = ?", [run]))
        for run in (pooled.run_id, whole.run_id)
    }
    assert params[pooled.run_id]["node_embedding"] == "segment-pooled"
    assert params[whole.run_id]["node_embedding"] == "full-text"
    assert pooled.n_leaves == whole.n_leaves == 120
    with pytest.raises(ValueError, match="node embedding 'bogus'"):
        build_film_tree(store, FILM, node_embedding="bogus")
