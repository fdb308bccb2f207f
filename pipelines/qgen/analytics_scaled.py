"""Question analytics on an executor: MiniLM embeddings one unit per batch of
questions, near-duplicate pairs one unit per block of rows; the driver assembles them in order
and computes the rest (`analytics.analyze_questions`: clusters, 2-D projection, Self-BLEU,
opening frames), so on any executor the rows are those of the same units run here.

The units write nothing themselves: the analytics rows are written with the run that asked for
them (`pipelines.qgen.scaled`, in the transaction that closes the batch). MiniLM loads once per
worker (`pipelines.embeddings` caches it per process; Ray workers are long-lived).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from pipelines.qgen.analytics import NEAR_DUPLICATE_COSINE, QuestionAnalytics, analyze_questions
from pipelines.scale import Executor, Unit

EMBED_BATCH = 256  # questions per embedding unit
PAIR_ROWS = 512  # rows of the similarity matrix per near-duplicate unit


def embed_unit(texts: list[str]) -> np.ndarray:
    """Work unit: unit-length MiniLM vectors of a batch of texts (runs on a worker)."""
    from pipelines.embeddings import embed_texts

    return embed_texts(texts)


def pair_unit(payload: dict) -> list[dict]:
    """Work unit: near-duplicate pairs (i, j > i) for the rows i in [start, stop).

    `vectors` holds rows start.. only (the columns a row can pair with), so a unit ships less.
    """
    ids, vectors, start = payload["ids"], payload["vectors"], payload["start"]
    block = vectors[: payload["stop"] - start] @ vectors.T
    pairs = []
    for row, similarities in enumerate(block):
        for col in np.flatnonzero(similarities[row + 1 :] >= payload["threshold"]) + row + 1:
            pairs.append(
                {
                    "question_a": ids[row],
                    "question_b": ids[col],
                    "cosine": round(float(similarities[col]), 4),
                }
            )
    return pairs


def _ordered(executor: Executor, fn, units: list[Unit]) -> list:
    """Every unit's value in unit order; a failed unit raises with its reason."""
    values = {}
    for outcome in executor.map_units(fn, units):
        if not outcome.ok:
            raise RuntimeError(f"analytics unit {outcome.key} failed: {outcome.error}")
        values[outcome.key] = outcome.value
    return [values[unit.key] for unit in units]


def executor_embedder(executor: Executor, batch: int = EMBED_BATCH) -> Callable:
    """texts -> vectors, one unit per `batch` texts on `executor`."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        units = [
            Unit(f"embed:{i:06d}", list(texts[i : i + batch])) for i in range(0, len(texts), batch)
        ]
        if not units:
            from pipelines.embeddings import embedding_dim

            return np.zeros((0, embedding_dim()), dtype=np.float32)
        return np.vstack(_ordered(executor, embed_unit, units))

    return embed


def executor_pairs(executor: Executor, rows: int = PAIR_ROWS) -> Callable:
    """(ids, vectors, threshold) -> near-duplicate pairs, one unit per `rows` rows."""

    def pairs_of(ids: Sequence[str], vectors: np.ndarray, threshold: float) -> list[dict]:
        ids = list(ids)
        units = [
            Unit(
                f"pairs:{a:06d}",
                {
                    "ids": ids[a:],
                    "vectors": vectors[a:],
                    "start": a,
                    "stop": min(a + rows, len(ids)),
                    "threshold": threshold,
                },
            )
            for a in range(0, len(ids), rows)
        ]
        return [pair for block in _ordered(executor, pair_unit, units) for pair in block]

    return pairs_of


def analyze_questions_on(
    executor: Executor, questions: pd.DataFrame, threshold: float = NEAR_DUPLICATE_COSINE
) -> QuestionAnalytics:
    """`analyze_questions` with the embeddings and the near-duplicate pairs on `executor`."""
    return analyze_questions(
        questions, threshold, embed=executor_embedder(executor), pairs_of=executor_pairs(executor)
    )
