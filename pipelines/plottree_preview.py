"""Retrieval preview for the PlotTree page (StoryVideoQA §5.2, "Node Retrieval" and "QA").

§5.2: encode the question, score every node of the tree (all levels) by semantic similarity,
keep the top-M, sort their summaries chronologically and concatenate them into the context sent
with the question. The paper encodes with a Qwen3 embedding model; offline we use MiniLM
(`pipelines.embeddings`, cosine on unit vectors) — the backend name is returned with the result
and shown on the page. Stored node vectors are used when their model matches; other nodes are
embedded from their summaries on the fly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

BACKEND = "minilm-cosine"


@dataclass
class RetrievalPreview:
    """Top-M nodes with scores, and the chronologically ordered context that would be sent."""

    backend: str
    model: str
    nodes: pd.DataFrame  # node_id, level, start_s, end_s, score, summary (chronological)
    context: str


def _node_vectors(nodes: pd.DataFrame, stored: pd.DataFrame) -> np.ndarray:
    from pipelines.embeddings import embed_texts

    known = (
        {n: np.asarray(v, dtype=np.float32) for n, v in zip(stored["node_id"], stored["vector"])}
        if not stored.empty
        else {}
    )
    missing = [n for n in nodes["node_id"] if n not in known]
    if missing:
        summaries = nodes.set_index("node_id").loc[missing, "summary"].fillna("").tolist()
        known.update(zip(missing, embed_texts(summaries)))
    matrix = np.stack([known[n] for n in nodes["node_id"]])
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def retrieve(
    question: str, nodes: pd.DataFrame, top_m: int = 3, stored: pd.DataFrame | None = None
) -> RetrievalPreview:
    """Score every node against `question`, keep the top `top_m`, build the context.

    Args:
        question: the question text typed by the user.
        nodes: node_id, level, start_s, end_s, summary (all levels of one film's tree).
        top_m: M, how many nodes to retrieve.
        stored: node_id, vector already in the store for the MiniLM model (optional).
    """
    from pipelines.embeddings import MODEL_NAME, embed_texts

    vectors = _node_vectors(nodes, stored if stored is not None else pd.DataFrame())
    query_vector = embed_texts([question])[0]
    scored = nodes.assign(score=vectors @ query_vector)
    top = scored.nlargest(min(top_m, len(scored)), "score")
    chronological = top.sort_values(["start_s", "level"], ascending=[True, False])
    context = "\n".join(f"[{row.node_id}] {row.summary}" for row in chronological.itertuples())
    columns = ["node_id", "level", "start_s", "end_s", "score", "summary"]
    return RetrievalPreview(
        BACKEND, MODEL_NAME, chronological[columns].reset_index(drop=True), context
    )
