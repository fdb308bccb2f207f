"""Ask a built PlotTree: retrieval for free questions or a film's MCQs, stored per run.

Every call records a `plottree.qa` run and one `plottree_retrievals` row per question (node ids
in context order, scores, context, answer and its backend), which the PlotTree page shows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from data_access.store import Store
from data_access.tables.plottree_records import current_tree, film_mcqs, insert_retrievals
from data_access.tables.runs import RunSpec, end_run, start_run
from pipelines.plottree.retrieval import (
    QA_PROMPT_VERSION,
    TOP_M,
    Retrieval,
    TreeIndex,
    option_letter,
    qa_messages,
    retrieve,
)

RETRIEVER = "minilm-cosine"


@dataclass
class Question:
    """One question to ask: an id (mcq_id or ask:<hash>), its text, options for an MCQ."""

    item_id: str
    text: str
    choices: list[str] | None = None


def load_index(store: Store, film_id: str) -> TreeIndex:
    """The film's current tree with vectors; ValueError when none was built."""
    from pipelines.embeddings import MODEL_NAME

    nodes, vectors = current_tree(store, film_id, MODEL_NAME)
    if nodes.empty:
        raise ValueError(
            f"film '{film_id}' has no PlotTree; run `storyscope plottree build "
            f"--film {film_id}` first"
        )
    return TreeIndex(nodes, vectors)


def free_question(text: str) -> Question:
    """A typed question, with a stable id from its text."""
    return Question("ask:" + hashlib.sha256(text.encode()).hexdigest()[:12], text)


def film_questions(store: Store, film_id: str) -> list[Question]:
    """The film's MCQs as questions with options."""
    frame = film_mcqs(store, film_id)
    return [
        Question(m, q, list(c))
        for m, q, c in zip(frame["mcq_id"], frame["question"], frame["choices"])
    ]


def _answers(store, config, run_id, questions, retrievals):
    if config is None:
        return [(None, None)] * len(questions)
    from pipelines.llm import Gateway, LLMRequest

    requests = [
        LLMRequest(
            item_id=q.item_id,
            messages=qa_messages(r.context, q.text, q.choices),
            parse=lambda text: text.strip(),
            params={"temperature": 0},
        )
        for q, r in zip(questions, retrievals)
    ]
    results = Gateway(store, config, run_id).run(requests)
    return [
        (r.parsed, option_letter(r.parsed) if q.choices else None) if r.ok else (None, None)
        for q, r in zip(questions, results)
    ]


def ask(
    store: Store, film_id: str, questions: list[Question], top_m: int = TOP_M, llm_config=None
) -> list[tuple[Retrieval, str | None]]:
    """Retrieve (and answer, with an LLM config) each question; store one run of results."""
    from pipelines.embeddings import MODEL_NAME, embed_texts

    index = load_index(store, film_id)
    question_vectors = embed_texts([q.text for q in questions])
    retrievals = [retrieve(index, v, top_m) for v in question_vectors]
    spec = RunSpec(
        step="plottree.qa",
        backend=RETRIEVER if llm_config is None else "llm",
        model=None if llm_config is None else llm_config.model,
        prompt_version=None if llm_config is None else QA_PROMPT_VERSION,
        params={"top_m": top_m, "embedder": MODEL_NAME},
        source=film_id,
    )
    run_id = start_run(store, spec)
    answers = _answers(store, llm_config, run_id, questions, retrievals)
    backend = None if llm_config is None else f"llm:{llm_config.model}"
    tree_run = str(index.nodes["run_id"].iloc[0])
    rows = [
        {
            "film_id": film_id,
            "item_id": q.item_id,
            "question": q.text,
            "tree_run_id": tree_run,
            "node_ids": r.nodes["node_id"].tolist(),
            "scores": r.nodes["score"].tolist(),
            "context": r.context,
            "answer": a,
            "answer_option": opt,
            "answer_backend": backend if a is not None else None,
        }
        for q, r, (a, opt) in zip(questions, retrievals, answers)
    ]
    with store.transaction() as cursor:
        insert_retrievals(cursor, rows, run_id)
    end_run(
        store,
        run_id,
        n_items=len(rows),
        n_failed=sum(a is None for a, _ in answers) if llm_config is not None else 0,
    )
    return [(r, a) for r, (a, _) in zip(retrievals, answers)]
