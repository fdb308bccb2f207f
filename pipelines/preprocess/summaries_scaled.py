"""Scene summaries of many films on an executor: one work unit per film.

`extractive`: the worker turns a film's scenes into summary rows; the driver writes them as the
film's `preprocess.summaries` run, exactly as `summarise_film` does. `openai`: the driver
starts the film's run and replays cached replies itself; the uncached requests go to a worker
with its own gateway (`pipelines.scale.llm_worker`); the driver writes the worker's cache
entries, call rows and summaries and closes the run. A killed run resumes when the same
command is given again (films already written are skipped). One LLM budget holds for the
whole batch across workers (`pipelines.scale.budget`); a film the budget stopped keeps the
summaries it got in a `stopped` run and is left failed in the unit_ledger, for the same command
with a larger budget to resume (its paid calls replay from the cache).
"""

from __future__ import annotations

from data_access.tables import unit_ledger
from data_access.tables.runs import RunSpec, end_run, finish_run, insert_run
from data_access.tables.scene_summaries import film_scene_lines, write_scene_summaries
from pipelines.preprocess.summaries import (
    BACKENDS,
    EXTRACT_WORDS,
    EXTRACTIVE,
    PROMPT_VERSION,
    STEP,
    extractive_summary,
    llm_run_spec,
    summary_requests,
    summary_rows,
)
from pipelines.scale import BatchResult, Executor, Unfinished, Unit, run_batch
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import (
    driver_gateway,
    llm_unit,
    requests_unit,
    unit_unfinished,
    write_llm_unit,
)
from pipelines.scale.runner import ProgressFn


def extractive_unit(scenes) -> list[tuple[int, str, str]]:
    """Work unit: a film's extractive summary rows (runs on a worker; no store)."""
    return [(int(i), text, EXTRACTIVE) for i, part in scenes if (text := extractive_summary(part))]


def _film_scenes(store, film_id: str) -> list:
    lines = film_scene_lines(store, film_id)
    if lines.empty:
        raise ValueError(f"film {film_id!r} has no scenes in this store")
    return list(lines.groupby("scene_index", sort=True))


def summarise_films(
    store,
    film_ids: list[str],
    executor: Executor,
    backend: str = EXTRACTIVE,
    llm: dict | None = None,
    progress: ProgressFn | None = None,
) -> BatchResult:
    """Summarise every scene of every film, one run per film, on `executor`.

    Raises:
        ValueError: unknown backend, or a film without scenes.
    """
    if backend not in BACKENDS:
        raise ValueError(f"--backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    scenes = {film_id: _film_scenes(store, film_id) for film_id in film_ids}
    if backend == EXTRACTIVE:
        return _extractive(store, scenes, executor, progress)
    return _openai(store, scenes, executor, llm or {}, progress)


def _extractive(store, scenes, executor, progress) -> BatchResult:
    def write(cursor, outcome) -> dict:
        spec = RunSpec(
            STEP, backend=EXTRACTIVE, params={"words": EXTRACT_WORDS}, source=outcome.key
        )
        run_id = insert_run(cursor, spec)
        write_scene_summaries(cursor, run_id, outcome.key, outcome.value)
        finish_run(cursor, run_id, n_items=len(outcome.value))
        return {"run_id": run_id}

    units = [Unit(film_id, part) for film_id, part in scenes.items()]
    params = {"backend": EXTRACTIVE, "words": EXTRACT_WORDS}
    return run_batch(store, executor, STEP, params, units, extractive_unit, write, progress)


def _openai(store, scenes, executor, overrides, progress) -> BatchResult:
    from pipelines.llm import load_config

    config = load_config(overrides)
    label = f"{config.model}@{PROMPT_VERSION}"
    runs, batch = {}, {}
    driver = driver_gateway(store, config)
    units = [
        (film_id, llm_run_spec(config, film_id), summary_requests(film_id, parts))
        for film_id, parts in scenes.items()
    ]

    def prepare(film_id, spec, requests) -> Unit:
        # The film's run starts here so its calls are logged under it; cached replies are
        # replayed here, the rest go to a worker (the key stays out of the unit).
        run_id = unit_ledger.start_unit_run(store, batch["id"], film_id, spec)
        # `budget`: the batch's, bound by the `with` below before any unit
        payload, replayed = requests_unit(store, config, run_id, requests, budget)
        runs[film_id] = (run_id, replayed)
        return Unit(film_id, payload)

    def write(cursor, outcome) -> dict | Unfinished:
        run_id, replayed = runs[outcome.key]
        rows = outcome.value.llm
        write_llm_unit(cursor, run_id, rows, driver)
        results = [*replayed, *outcome.value.results]
        written = summary_rows(results, label)
        write_scene_summaries(cursor, run_id, outcome.key, written)
        failed = len(results) - len(written)
        unfinished = unit_unfinished(rows)
        status = "finished" if unfinished is None else "stopped"
        finish_run(cursor, run_id, status, n_items=len(written), n_failed=failed)
        runs[outcome.key] = (None, replayed)  # closed
        return {"run_id": run_id} if unfinished is None else unfinished

    params = {"backend": "openai", "model": config.model, "prompt_version": PROMPT_VERSION}
    by_film = {film_id: (spec, requests) for film_id, spec, requests in units}
    try:
        with batch_budget(executor, config) as budget:
            result = run_batch(
                store,
                executor,
                STEP,
                params,
                [Unit(film_id, None) for film_id in by_film],  # prepared just before dispatch
                llm_unit,
                write,
                progress,
                prepare=lambda unit: prepare(unit.key, *by_film[unit.key]),
                on_start=lambda batch_id: batch.update(id=batch_id),
            )
            result.budget = budget_state(budget)
    finally:
        # a unit that failed on its worker, or one the batch ended before (a refused key):
        # close the run it started
        for run_id, _ in runs.values():
            if run_id is not None:
                end_run(store, run_id, status="failed")
    return result
