"""LLM belief annotation of many films on an executor: one unit per (film, scene range).

Each unit is the run `storyscope beliefs annotate --backend openai --film F --scenes a:b`
writes (LF-VideoQA §3.1, App. D; `llm.film.annotate_llm`): the same stages, the same prompts,
the same rows. A range starts from empty belief records, as `--scenes a:b` does, so ranges
trade the records carried from earlier scenes for parallelism; `--scenes-per-unit` unset (the
default) makes one unit per film and keeps the film's records whole.

The stages' prompts depend on earlier replies, so the requests are not known before dispatch.
The driver therefore starts the unit's run, replays the unit against the store's cache up to
its first miss (`llm_worker.CacheReplayGateway`) and ships those replies with the unit; the
worker's own gateway answers from them first and sends the rest. The worker returns its rows,
parse issues, cache entries and call rows; the driver writes them, closes the run and records
the unit in one transaction. One LLM budget holds for the whole batch across workers
(`pipelines.scale.budget`); a unit the budget stopped is written as a `stopped` run (as a
local run is) and left failed in the unit_ledger, so the same command with a larger budget
resumes it, replaying its calls from the cache. A refused key stops its unit the same way
and ends the batch (`llm_worker.unit_unfinished`): the command fails with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from data_access.tables import belief_records, unit_ledger
from data_access.tables.runs import end_run
from pipelines.beliefs.backend_io import Selection, load_film
from pipelines.beliefs.llm.film import BACKEND, llm_run_spec
from pipelines.beliefs.llm.prompts import PROMPT_VERSION
from pipelines.beliefs.llm.stages import DEFAULT_COVERAGE, BeliefAnnotator, check_coverage
from pipelines.beliefs.scaled import scene_ranges
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


@dataclass
class BeliefUnitResult:
    """What a worker sends back for one (film, scene range)."""

    tables: dict[str, list[dict]]
    issues: list[dict]
    failed: int
    llm: LLMUnitRows  # its calls; why it stopped, if it did (`unit_unfinished`)


def llm_belief_unit(payload: dict) -> BeliefUnitResult:
    """Work unit: annotate one scene range through this worker's gateway (no store)."""
    gateway = unit_gateway(payload)
    annotator = _annotator(payload, gateway)
    annotator.run()
    return BeliefUnitResult(
        dict(annotator.tables),
        annotator.issues,
        annotator.failed,
        unit_rows(gateway),
    )


def _annotator(payload: dict, gateway) -> BeliefAnnotator:
    selection = Selection(payload["first"], payload["stop"])
    return BeliefAnnotator(
        None,
        payload["film_id"],
        selection,
        gateway,
        payload["coverage"],
        loaded=payload["loaded"],
    )


def annotate_films_llm(
    store,
    film_ids: list[str],
    executor: Executor,
    config,
    scenes_per_unit: int | None = None,
    coverage: str = DEFAULT_COVERAGE,
    progress: ProgressFn | None = None,
) -> BatchResult:
    """Annotate every film with the LLM stages, one run per (film, scene range).

    Raises:
        AnnotateError: a film that is unknown or has no script lines.
        ValueError: an unknown coverage policy.
    """
    check_coverage(coverage)
    films = {film_id: load_film(store, film_id) for film_id in film_ids}
    ranges = {}
    for film_id, loaded in films.items():
        n_scenes = max(loaded.scenes) + 1 if loaded.scenes else 0
        for first, stop in scene_ranges(n_scenes, scenes_per_unit):
            key = f"{film_id}[{'' if first is None else first}:{'' if stop is None else stop}]"
            ranges[key] = (film_id, Selection(first, stop))
    runs: dict[str, str] = {}
    closed: set[str] = set()  # units whose run was written (finished or stopped)
    batch: dict[str, str] = {}
    driver = driver_gateway(store, config)

    def on_start(batch_id: str) -> None:
        batch["id"] = batch_id

    def prepare(unit: Unit) -> Unit:
        film_id, selection = ranges[unit.key]
        spec = llm_run_spec(film_id, selection, coverage, config)
        run_id = unit_ledger.start_unit_run(store, batch["id"], unit.key, spec)
        runs[unit.key] = run_id
        scenes = {
            "coverage": coverage,
            "film_id": film_id,
            "first": selection.first,
            "stop": selection.stop,
            "loaded": films[film_id],
        }
        replay = CacheReplayGateway(store, config)
        _annotator(scenes, replay).run()
        # `budget`: the batch's, bound by the `with` below before any unit
        llm = unit_payload(replay, run_id, budget)
        return Unit(unit.key, {**llm, **scenes, "cache": replay.hits})

    def write(cursor, outcome):
        value, run_id = outcome.value, runs[outcome.key]
        write_llm_unit(cursor, run_id, value.llm, driver)
        unfinished = unit_unfinished(value.llm)
        status = "finished" if unfinished is None else "stopped"
        _, counts = belief_records.insert_annotation(
            cursor, run_id, value.tables, value.issues, status, value.failed
        )
        closed.add(outcome.key)
        return {"run_id": run_id, "rows": counts} if unfinished is None else unfinished

    params = {
        "backend": BACKEND,
        "model": config.model,
        "prompt_version": PROMPT_VERSION,
        "coverage": coverage,
        "scenes_per_unit": scenes_per_unit,
    }
    try:
        with batch_budget(executor, config) as budget:
            result = run_batch(
                store,
                executor,
                "beliefs.annotate",
                params,
                [Unit(key, None) for key in ranges],  # prepared just before dispatch
                llm_belief_unit,
                write,
                progress,
                prepare=prepare,
                on_start=on_start,
            )
            result.budget = budget_state(budget)
    finally:
        # a unit that failed on its worker, or one the batch ended before (a refused key):
        # close the run it started
        for key, run_id in runs.items():
            if key not in closed:
                end_run(store, run_id, status="failed")
    return result
