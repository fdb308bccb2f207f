"""PlotTree QA (StoryVideoQA §5.2): retrieve top-M nodes across all levels, then answer.

Node retrieval: embed the question (MiniLM here, Qwen3 in the paper), cosine against every
node's vector, keep the top M (default 32, §6.1), sort them chronologically (start time, then
higher levels first) and concatenate their summaries into the context. QA: the context and the
question (with its options for an MCQ) go to the gateway; offline there is no answer (None) and
the retrieval still runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

TOP_M = 32
QA_PROMPT_VERSION = "plottree-qa-v1"


@dataclass
class TreeIndex:
    """A built tree in memory: node rows and their unit vectors, aligned."""

    nodes: pd.DataFrame  # node_id, level, start_s, end_s, summary, run_id
    vectors: np.ndarray


@dataclass
class Retrieval:
    """The retrieved nodes in context order, with scores, and the context text."""

    nodes: pd.DataFrame  # node_id, level, start_s, end_s, score, summary
    context: str


def retrieve(index: TreeIndex, question_vector: np.ndarray, top_m: int = TOP_M) -> Retrieval:
    """Top-M nodes by cosine, in chronological order."""
    scores = index.vectors @ question_vector
    m = min(top_m, len(scores))
    top = np.argpartition(-scores, m - 1)[:m] if m < len(scores) else np.arange(len(scores))
    picked = index.nodes.iloc[top][["node_id", "level", "start_s", "end_s", "summary"]].copy()
    picked["score"] = scores[top].astype(float)
    picked = picked.sort_values(["start_s", "level"], ascending=[True, False], kind="stable")
    context = "\n".join(
        f"[{s / 60:.1f} min] {text}" for s, text in zip(picked["start_s"], picked["summary"])
    )
    return Retrieval(picked.reset_index(drop=True), context)


def qa_messages(context: str, question: str, choices: list[str] | None) -> list[dict]:
    """The QA prompt: context paragraph + question; with options, PlotTree QA's MCQ prompt
    (`pipelines.mcq.answer_prompts`, the one `storyscope mcq answer` sends)."""
    if choices:
        from pipelines.mcq.answer_prompts import PLOTTREE_WHAT, mcq_messages

        return mcq_messages(PLOTTREE_WHAT, context, question, list(choices))
    body = f"Story context (in time order):\n{context}\n\nQuestion: {question}\nAnswer briefly."
    return [
        {
            "role": "system",
            "content": "You answer questions about a story video using only the given context.",
        },
        {"role": "user", "content": body},
    ]


def option_letter(reply: str) -> str | None:
    """The first standalone option letter A-E in a reply, if any."""
    match = re.search(r"\b([A-E])\b", reply.strip().upper())
    return match.group(1) if match else None
