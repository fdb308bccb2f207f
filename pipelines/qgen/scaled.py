"""Question generation on an executor: one unit per (film, batch of sampled context-sets).

The driver plans the run exactly as `generate` does (context-sets, discard rules, sampling;
`generate.plan_generation`), then hands each batch of drafts to a worker, which runs Stages 1–3
and the self-check over it (`generate.run_stages`; a draft's stages depend only on that draft,
so a batch's drafts come out as they do in one whole-film run). The driver writes each batch's
rows (`generate.insert_draft_rows`) with its ledger row in one transaction; when every batch is
in, it computes the analytics with the embeddings and near-duplicate pairs on the executor
(`analytics_scaled`) and writes them with the context-sets and the run's end, in the
transaction that closes the batch. The run is named after the batch, so a killed run resumes
under the same run id with the same command, writing each batch once.

`openai`: the driver replays cached replies before dispatch only where it can: the stages are
sequential per draft, so like belief annotation (`pipelines.beliefs.llm.scaled`) the driver walks
the batch through the stages against the store's cache and ships the hits; the worker's own
gateway answers from them first. One LLM budget holds across the workers
(`pipelines.scale.budget`); a batch the budget stopped is left failed for a resume.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import pandas as pd

from data_access.tables import qgen_records
from data_access.tables.runs import insert_run, run_exists
from pipelines.qgen.analytics_scaled import analyze_questions_on
from pipelines.qgen.drafts import Draft
from pipelines.qgen.film_view import FilmView
from pipelines.qgen.generate import (
    GenerateOptions,
    close_run,
    insert_draft_rows,
    plan_generation,
    prefix_context_sets,
    retire_rejected_before,
    run_spec,
    run_stages,
)
from pipelines.qgen.stages import new_draft
from pipelines.scale import BatchResult, Executor, Unit, run_batch
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import (
    CacheReplayGateway,
    LLMUnitRows,
    driver_gateway,
    unit_gateway,
    unit_payload,
    unit_rows,
    unit_unfinished,
    write_llm_unit,
)
from pipelines.scale.runner import ProgressFn

STEP = "qgen.generate"


@dataclass
class QgenUnitResult:
    """A worker's drafts after the stages, and its call log (openai)."""

    drafts: list[Draft]
    llm: LLMUnitRows | None = None  # (openai) its calls; why it stopped, if it did


def qgen_unit(payload: dict) -> QgenUnitResult:
    """Work unit: Stages 1–3 and the self-check over a batch of drafts (no store)."""
    drafts = payload["drafts"]
    if payload["backend"] == "template":
        from pipelines.qgen.template_backend import TemplateBackend

        run_stages(TemplateBackend(), drafts)
        return QgenUnitResult(drafts)
    gateway = unit_gateway(payload)
    run_stages(_llm_backend(payload, gateway), drafts)
    return QgenUnitResult(drafts, unit_rows(gateway))


def _llm_backend(payload: dict, gateway):
    from pipelines.qgen.llm_backend import LLMBackend

    backend = LLMBackend.__new__(LLMBackend)  # no store: the scene texts travel with the unit
    backend.gateway, backend.model, backend.store = gateway, payload["config"].model, None
    backend.view, backend.examples = payload["view"], payload["examples"]
    backend.scene_texts = payload["scene_texts"]
    return backend


def _questions(kept: dict) -> pd.DataFrame:
    """The written questions of every batch, in the order of the sampled context-sets."""
    rows = [q for key in sorted(kept) for q in kept[key]["questions"]]
    return pd.DataFrame(rows, columns=["question_id", "qtype", "text"])


def generate_on_executor(
    store,
    options: GenerateOptions,
    executor: Executor,
    batch_size: int = 8,
    llm_config=None,
    progress: ProgressFn | None = None,
) -> BatchResult:
    """Generate questions for one film, `batch_size` context-sets per unit, on `executor`.

    Raises:
        GenerationError: unknown film / type / center, no belief records, bad n.
    """
    view, report = plan_generation(store, options)
    rejected = qgen_records.rejected_question_texts(store, options.film_id)
    picked, batch_size = report.picked, max(1, batch_size)
    units = [Unit(f"{i:05d}", None) for i in range(-(-len(picked) // batch_size))]
    config = (llm_config or options.config()) if options.backend == "openai" else None
    worker = _Identity(options.backend, config)
    state: dict = {}

    def on_start(batch_id: str) -> None:
        # The run is named after the batch, so a resumed batch writes under the same run.
        run_id = state["run_id"] = batch_id
        prefix_context_sets(report.context_sets, run_id)
        if not run_exists(store, run_id):
            with store.transaction() as cursor:
                insert_run(cursor, run_spec(options, worker), run_id)
        if config is not None:
            state["driver"] = driver_gateway(store, config, run_id)

    def prepare(unit: Unit) -> Unit:
        first = int(unit.key) * batch_size
        drafts = [new_draft(cs, state["run_id"]) for cs in picked[first : first + batch_size]]
        payload = {"backend": options.backend, "drafts": drafts, "run_id": state["run_id"]}
        if options.backend == "openai":
            # `budget`: the batch's, bound by the `with` below before any unit
            payload.update(_llm_payload(store, view, drafts, config, state["run_id"], budget))
        return Unit(unit.key, payload)

    def write(cursor, outcome):
        value, run_id = outcome.value, state["run_id"]
        if value.llm is not None:
            write_llm_unit(cursor, run_id, value.llm, state["driver"])
            unfinished = unit_unfinished(value.llm)
            if unfinished is not None:  # stopped: its paid calls are cached for the resume
                return unfinished
        retire_rejected_before(value.drafts, rejected)
        insert_draft_rows(cursor, run_id, view, value.drafts, worker.name)
        questions = [
            [d.question_id, d.qtype or d.context_set.qtype, d.question]
            for d in value.drafts
            if d.question
        ]
        return {
            "questions": questions,
            "items": len(value.drafts),
            "failed": sum(d.status == "failed" for d in value.drafts),
        }

    def finish(cursor, kept: dict) -> None:
        questions = _questions(kept)
        analytics = None
        if options.with_analytics and not questions.empty:
            analytics = analyze_questions_on(executor, questions)
        counts = (sum(k["items"] for k in kept.values()), sum(k["failed"] for k in kept.values()))
        close_run(cursor, state["run_id"], report.context_sets, analytics, counts=counts)

    params = {**options.params(), "batch_size": batch_size}
    with batch_budget(executor, config) as budget:
        result = run_batch(
            store, executor, STEP, params, units, qgen_unit, write, progress,
            prepare=prepare, on_start=on_start, finish=finish,
        )  # fmt: skip
        result.budget = budget_state(budget)
    return result


class _Identity:
    """The run's backend name and model, without building a backend (`run_spec` reads them)."""

    def __init__(self, backend: str, config) -> None:
        self.name = backend
        self.model = config.model if config is not None else None


def _llm_payload(store, view: FilmView, drafts: list[Draft], config, run_id: str, budget) -> dict:
    """What an openai unit needs besides its drafts: the scene texts Stage 3 quotes, the
    exemplars, the gateway's settings (`llm_worker.unit_payload`) and the cached replies of
    the stages it reaches."""
    from pipelines.qgen.llm_backend import example_triples

    shown = sorted({s["scene"] for d in drafts for s in d.context_set.payload["scenes"]})
    scene_texts = qgen_records.scene_texts(store, view.film_id, shown)
    replay = CacheReplayGateway(store, config)
    shared = {
        **unit_payload(replay, run_id, budget),
        "view": view,
        "examples": example_triples(view.film_id),
        "scene_texts": scene_texts,
    }
    run_stages(_llm_backend(shared, replay), [copy.deepcopy(d) for d in drafts])
    return {**shared, "cache": replay.hits}
