"""The retrieval tools' two rankers over a list of texts (cues, captions, scenes, windows):

- `bm25`: Okapi BM25 (bm25s, Lucene's variant, k1 = 1.5, b = 0.75: the library's defaults)
  over lower-cased words of two or more letters, English stop words removed, Porter-stemmed
  (nltk), so "logs" finds "log". Only texts sharing a word with the query are returned.
- `embedding`: cosine similarity of all-MiniLM-L6-v2 sentence vectors (`pipelines.embeddings`),
  the k nearest whatever their score.

A corpus builds its ranker on first use and keeps it, so a film's tools index their texts once
per index (not per call) and the embedding model is loaded only by a tool that ranks with it.
Which ranker each tool uses by default is `DEFAULT_RANKERS` (pipelines.agents.tools.index),
chosen from `benchmarks/bench_agent_retrieval.py`.
"""

from __future__ import annotations

import threading

import numpy as np

RANKERS = ("bm25", "embedding")


class _PorterStemmer:
    """nltk's Porter stemmer in the shape bm25s calls (`stemWords`)."""

    def __init__(self) -> None:
        from nltk.stem import PorterStemmer

        self._stemmer = PorterStemmer()

    def stemWords(self, words: list[str]) -> list[str]:  # noqa: N802 (bm25s's name)
        return [self._stemmer.stem(word) for word in words]


def _tokens(texts: list[str]):
    import bm25s

    return bm25s.tokenize(
        texts, stopwords="en", stemmer=_PorterStemmer(), show_progress=False, return_ids=False
    )


class RankedCorpus:
    """Texts ranked against a query by either ranker (each built on first use)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = [text or "" for text in texts]
        self._lock = threading.Lock()
        self._bm25 = None
        self._vectors: np.ndarray | None = None

    def top(self, query: str, ranker: str, k: int) -> list[int]:
        """Indices of the (at most) k best texts for `query`, best first."""
        if not self.texts or k <= 0:
            return []
        if ranker == "bm25":
            scores = self._bm25_scores(query)
            order = [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] > 0]
            return order[:k]
        if ranker == "embedding":
            scores = self._embedding_scores(query)
            return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]
        raise ValueError(f"unknown ranker {ranker!r}; the rankers are {', '.join(RANKERS)}")

    def _bm25_scores(self, query: str) -> np.ndarray:
        import bm25s

        with self._lock:
            if self._bm25 is None:
                corpus_tokens = _tokens(self.texts)
                if not any(corpus_tokens):
                    return np.zeros(len(self.texts))
                retriever = bm25s.BM25()
                retriever.index(corpus_tokens, show_progress=False)
                self._bm25 = retriever
        query_tokens = _tokens([query])[0]
        known = [token for token in query_tokens if token in self._bm25.vocab_dict]
        if not known:
            return np.zeros(len(self.texts))
        return np.asarray(self._bm25.get_scores(known), dtype=float)

    def _embedding_scores(self, query: str) -> np.ndarray:
        from pipelines.embeddings import embed_texts

        with self._lock:
            if self._vectors is None:
                self._vectors = embed_texts(self.texts)
        return self._vectors @ embed_texts([query])[0]
