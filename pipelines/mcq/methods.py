"""`storyscope mcq answer`: StoryScope's own methods answer StoryVideoQA MCQs.

- `plottree`: PlotTree QA (StoryVideoQA §5.2): the question and its options are embedded, the
  top-M nodes of the video's built tree (all levels; M = 32, §6.1) are retrieved by cosine and
  given in time order (higher levels first at equal start) with the question and options
  (`answer_prompts`). With an LLM the model picks the letter; offline, the backend
  `minilm-option-match` picks the option whose MiniLM vector is closest to a retrieved node's
  (a named extractive baseline, never passed off as model output).
- `subtitles`: the video's subtitle cues within the token budget (`subtitle_budget`: evenly
  spaced cues when they do not fit) with the question and options; LLM only.

Each call is one `mcq.answer` run (backend, model, prompt version, and in `params` the method,
budget, filters and, per video, what was cut). Its predictions are ordinary `mcq_predictions`
rows — an unanswered (failed) item is a NULL choice, counted wrong like an imported empty
prediction — so they join imported methods on Distributions; PlotTree's retrievals are stored
under the same run for the per-question view. Replies are cached by the gateway, so a killed run
is resumed by giving the same command again (cached items replay without a call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from data_access.queries.mcq_methods import ANSWER_STEP, subtitle_cues
from data_access.queries.task_questions import mcq_questions
from data_access.store import Store
from data_access.tables.mcq import insert_predictions
from data_access.tables.plottree_records import insert_retrievals
from data_access.tables.runs import RunSpec, end_run, start_run
from pipelines.mcq import answer_prompts as prompts
from pipelines.mcq.subtitle_budget import clock, fit_subtitles

METHODS = ("plottree", "subtitles")
OFFLINE_BACKEND = "minilm-option-match"
DEFAULT_SUBTITLE_BUDGET = 16000  # estimated tokens of subtitle lines (a 16k-32k window model)
TOP_M = 32  # §6.1: "extract top-32 matching nodes in PlotTree QA"


@dataclass
class AnswerOptions:
    """What to answer and how.

    Attributes:
        method: `plottree` or `subtitles`.
        where: mcq column -> allowed values (`task_questions.MCQ_FILTERS` columns).
        limit: at most this many questions (the first by source, video and id).
        budget: the context budget in estimated tokens (None: no limit; subtitles default
            DEFAULT_SUBTITLE_BUDGET).
        llm_config: the gateway's endpoint and model; None answers offline (plottree only).
        top_m: PlotTree nodes retrieved per question.
    """

    method: str
    where: dict[str, list[str]] = field(default_factory=dict)
    limit: int | None = None
    budget: int | None = None
    llm_config: object | None = None
    top_m: int = TOP_M

    @property
    def backend(self) -> str:
        return "openai" if self.llm_config is not None else OFFLINE_BACKEND

    def method_name(self) -> str:
        """The method's name among predictions: `<method>[@budget]:<model or backend>`."""
        answerer = self.llm_config.model if self.llm_config is not None else OFFLINE_BACKEND
        budget = f"@{self.budget}" if self.budget is not None else ""
        return f"{self.method}{budget}:{answerer}"


@dataclass
class Prepared:
    """One question ready to send: its messages and what it was given."""

    mcq_id: str
    option: str
    choices: list[str]
    messages: list[dict]
    retrieval: dict | None = None  # plottree_retrievals row (without answer fields)
    node_vectors: np.ndarray | None = None  # the retrieved nodes' vectors (offline choice)


def validate(options: AnswerOptions) -> None:
    """ValueError for an unknown method, a bad budget, or subtitles without an LLM."""
    if options.method not in METHODS:
        raise ValueError(f"unknown method '{options.method}'; use one of {', '.join(METHODS)}")
    if options.budget is not None and options.budget < 1:
        raise ValueError("--budget must be at least 1 token")
    if options.top_m < 1:
        raise ValueError("--top-m must be at least 1")
    if options.method == "subtitles" and options.llm_config is None:
        raise ValueError("the subtitles method needs a model (--backend openai --model M)")


def answer_mcqs(
    store: Store, options: AnswerOptions, echo: Callable[[str], None] = lambda _: None
) -> dict:
    """Answer the selected MCQs with one method; store one run of predictions.

    Returns:
        run_id, status (`stopped` when the LLM budget ended it early), method, questions
        (written), answered, failed, accuracy (% over the questions written), skipped (video ->
        reason: no subtitles / no PlotTree).

    Raises:
        ValueError: bad options, or no question matches.
    """
    if options.method == "subtitles" and options.budget is None:
        options = replace(options, budget=DEFAULT_SUBTITLE_BUDGET)
    validate(options)
    questions = mcq_questions(store, options.where, options.limit)
    if questions.empty:
        raise ValueError("no MCQs match the filters")
    prepared, provenance, skipped = _prepare(store, options, questions)
    for vid, reason in skipped.items():
        echo(f"  {vid}: skipped ({reason})")
    run_id = start_run(store, _run_spec(options, provenance, skipped))
    try:
        if options.llm_config is None:
            written = _answer_offline(store, prepared, options, run_id)
        else:
            written = _answer_with_llm(store, prepared, options, run_id)
    except BaseException:
        end_run(store, run_id, status="failed")
        raise
    failed = sum(row[2] is None for row in written)
    # a run the LLM budget stopped short is not a method's result: the same command resumes it
    status = "finished" if len(written) == len(prepared) else "stopped"
    end_run(store, run_id, status=status, n_items=len(written), n_failed=failed)
    correct = sum(bool(row[3]) for row in written)
    return {
        "run_id": run_id,
        "status": status,
        "method": options.method_name(),
        "questions": len(written),
        "answered": len(written) - failed,
        "failed": failed,
        "accuracy": round(100.0 * correct / len(written), 2) if written else None,
        "skipped": skipped,
    }


def _run_spec(options: AnswerOptions, provenance: dict, skipped: dict) -> RunSpec:
    llm = options.llm_config
    return RunSpec(
        step=ANSWER_STEP,
        backend=options.backend,
        model=None if llm is None else llm.model,
        prompt_version=(
            prompts.PLOTTREE_PROMPT_VERSION
            if options.method == "plottree"
            else prompts.SUBTITLES_PROMPT_VERSION
        ),
        params={
            "method": options.method,
            "method_name": options.method_name(),
            "budget_tokens": options.budget,
            "token_estimate": f"{prompts.CHARS_PER_TOKEN} characters a token",
            "top_m": options.top_m if options.method == "plottree" else None,
            "where": options.where,
            "limit": options.limit,
            "llm": None if llm is None else llm.public_dict(),
            "videos": provenance,
            "skipped": skipped,
        },
        source=options.method_name(),
    )


def _prepare(store: Store, options: AnswerOptions, questions: pd.DataFrame):
    """Messages per question, per-video provenance, and videos that cannot be answered."""
    prepared: list[Prepared] = []
    provenance: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    build = _plottree_video if options.method == "plottree" else _subtitle_video
    for vid, group in questions.groupby("vid", sort=False):
        try:
            items, record = build(store, str(vid), group, options)
        except LookupError as exc:
            skipped[str(vid)] = str(exc)
            continue
        prepared += items
        provenance[str(vid)] = record
    return prepared, provenance, skipped


def _subtitle_video(store: Store, vid: str, group: pd.DataFrame, options: AnswerOptions):
    cues = subtitle_cues(store, vid)
    if cues.empty:
        raise LookupError("no subtitles in the store")
    # one context per video: the rule reads neither the question nor its evidence or answer
    fitted = fit_subtitles(list(cues["start_s"]), list(cues["text"]), options.budget)
    items = [
        Prepared(
            mcq_id=row.mcq_id,
            option=row.option,
            choices=list(row.choices),
            messages=prompts.mcq_messages(
                prompts.SUBTITLES_WHAT, fitted.text, row.question, list(row.choices)
            ),
        )
        for row in group.itertuples()
    ]
    return items, fitted.provenance()


def _plottree_video(store: Store, vid: str, group: pd.DataFrame, options: AnswerOptions):
    from pipelines.embeddings import MODEL_NAME, embed_texts
    from pipelines.plottree.ask import load_index
    from pipelines.plottree.retrieval import retrieve

    try:
        index = load_index(store, vid)
    except ValueError:
        raise LookupError("no PlotTree; run `storyscope plottree build`") from None
    queries = [prompts.retrieval_query(q, list(c)) for q, c in zip(group.question, group.choices)]
    row_of = {node_id: i for i, node_id in enumerate(index.nodes["node_id"])}
    tree_run = str(index.nodes["run_id"].iloc[0])
    items, cut = [], 0
    for row, vector in zip(group.itertuples(), embed_texts(queries)):
        nodes = retrieve(index, vector, options.top_m).nodes
        kept = _within_budget(nodes, options.budget)
        cut += len(nodes) - len(kept)
        context = prompts.plottree_context(list(kept["start_s"]), list(kept["summary"]))
        items.append(
            Prepared(
                mcq_id=row.mcq_id,
                option=row.option,
                choices=list(row.choices),
                messages=prompts.mcq_messages(
                    prompts.PLOTTREE_WHAT, context, row.question, list(row.choices)
                ),
                retrieval={
                    "film_id": vid,
                    "item_id": row.mcq_id,
                    "question": row.question,
                    "tree_run_id": tree_run,
                    "node_ids": kept["node_id"].tolist(),
                    "scores": kept["score"].astype(float).tolist(),
                    "context": context,
                },
                node_vectors=index.vectors[[row_of[n] for n in kept["node_id"]]],
            )
        )
    record = {"tree_run_id": tree_run, "embedder": MODEL_NAME, "nodes_cut": cut}
    return items, record


def _within_budget(nodes: pd.DataFrame, budget: int | None) -> pd.DataFrame:
    """The retrieved nodes whose context fits `budget`: taken by similarity, most similar
    first, each kept if the context with it still fits (the release declares a
    `max_context_tokens` it never applies; this is our rule). Returned in context order."""
    if budget is None:
        return nodes
    kept: list = []
    for label in nodes.sort_values("score", ascending=False, kind="stable").index:
        trial = nodes.loc[nodes.index.isin([*kept, label])]
        context = prompts.plottree_context(list(trial["start_s"]), list(trial["summary"]))
        if prompts.estimate_tokens(context) <= budget:
            kept.append(label)
    return nodes.loc[nodes.index.isin(kept)]


def _rows(prepared: list[Prepared], chosen: dict[str, str | None], method: str) -> list[tuple]:
    return [
        (p.mcq_id, method, chosen[p.mcq_id], chosen[p.mcq_id] == p.option)
        for p in prepared
        if p.mcq_id in chosen
    ]


def _retrieval_rows(prepared: list[Prepared], chosen: dict, backend: str) -> list[dict]:
    return [
        {
            **p.retrieval,
            "answer": chosen[p.mcq_id],
            "answer_option": chosen[p.mcq_id],
            "answer_backend": backend if chosen[p.mcq_id] is not None else None,
        }
        for p in prepared
        if p.retrieval is not None and p.mcq_id in chosen
    ]


def _answer_offline(store: Store, prepared: list[Prepared], options, run_id: str) -> list[tuple]:
    """minilm-option-match: the option nearest (cosine) to any retrieved node."""
    from pipelines.embeddings import embed_texts

    vectors = embed_texts([c for p in prepared for c in p.choices])
    chosen, at = {}, 0
    for p in prepared:
        n = len(p.choices)
        option_vectors, at = vectors[at : at + n], at + n
        if p.node_vectors is None or not len(p.node_vectors):
            chosen[p.mcq_id] = None
            continue
        best = (option_vectors @ p.node_vectors.T).max(axis=1)
        chosen[p.mcq_id] = prompts.LETTERS[int(np.argmax(best[: len(prompts.LETTERS)]))]
    rows = _rows(prepared, chosen, options.method_name())
    with store.transaction() as cursor:
        insert_retrievals(cursor, _retrieval_rows(prepared, chosen, OFFLINE_BACKEND), run_id)
        insert_predictions(cursor, rows, run_id)
    return rows


def _answer_with_llm(store: Store, prepared: list[Prepared], options, run_id: str) -> list[tuple]:
    """Through the gateway; each batch's predictions are written with its cache entries."""
    from pipelines.llm import Gateway, LLMRequest

    by_id = {p.mcq_id: p for p in prepared}
    written: dict[str, tuple] = {}  # by id: a batch rolled back on a conflict is written again
    backend = f"llm:{options.llm_config.model}"

    def on_batch(cursor, results) -> None:
        chosen = {
            r.item_id: (r.parsed.option if r.ok else None) for r in results if r.status != "skipped"
        }
        batch = [by_id[i] for i in chosen]
        rows = _rows(batch, chosen, options.method_name())
        insert_retrievals(cursor, _retrieval_rows(batch, chosen, backend), run_id)
        insert_predictions(cursor, rows, run_id)
        written.update((row[0], row) for row in rows)

    requests = [
        LLMRequest(
            item_id=p.mcq_id,
            messages=p.messages,
            schema=prompts.MCQReply,
            params={"temperature": 0},
        )
        for p in prepared
    ]
    Gateway(store, options.llm_config, run_id).run(requests, on_batch=on_batch)
    return list(written.values())


def provenance_summary(params_json: str | None) -> str:
    """What a run's params say it gave the model, in a few words (the methods table): the
    budget and what was cut; '' for runs without them (imported predictions)."""
    import json

    params = json.loads(params_json) if params_json else {}
    if not isinstance(params, dict) or "method" not in params:
        return ""
    videos = (params.get("videos") or {}).values()
    budget = params.get("budget_tokens")
    parts = [f"budget {budget} tokens" if budget else "no budget"]
    if params["method"] == "subtitles":
        total = sum(v.get("cues_total", 0) for v in videos)
        cut = sum(v.get("cues_cut", 0) for v in videos)
        parts.append(f"{cut} of {total} cues cut over {len(params.get('videos') or {})} videos")
    else:
        parts.append(f"top-{params.get('top_m')} nodes")
        parts.append(f"{sum(v.get('nodes_cut', 0) for v in videos)} nodes cut")
    if params.get("skipped"):
        parts.append(f"{len(params['skipped'])} videos skipped")
    return "; ".join(parts)


def given_for_video(params_json: str | None, vid: str) -> str:
    """What a run gave the model for one video, in a sentence (the per-question view); '' when
    the run does not say (imported predictions)."""
    import json

    params = json.loads(params_json) if params_json else {}
    video = (params.get("videos") or {}).get(vid) if isinstance(params, dict) else None
    if not video:
        return ""
    if params.get("method") == "subtitles":
        if not video.get("cues_kept"):
            return f"no subtitle cue fitted the budget of {video.get('budget')} tokens"
        return (
            f"{video['cues_kept']} of {video['cues_total']} subtitle cues (rule"
            f" {video['rule']}, ~{video['tokens']} tokens of {video.get('budget')}), from"
            f" {clock(video['first_s'])} to {clock(video['last_s'])}"
        )
    budget = params.get("budget_tokens")
    cut = (
        f"{video.get('nodes_cut', 0)} nodes cut by the budget of {budget} tokens over this video"
        if budget
        else "no budget"
    )
    return (
        f"the top-{params.get('top_m')} PlotTree nodes (all of them when the tree is smaller) of"
        f" tree run {video.get('tree_run_id')}, embedder {video.get('embedder')}; {cut}"
    )
