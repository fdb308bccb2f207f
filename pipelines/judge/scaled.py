"""The judge on an executor (`JudgeOptions.executor`): one work unit per answer batch.

The lexical backend sends each batch of `lexical_items` to a worker (MiniLM loaded once per
worker); the openai backend replays cached replies here and sends the rest to workers in
chunks, each worker with its own gateway (pipelines.scale.llm_worker). Either way the driver
writes each batch's verdicts, with the job's progress, in one transaction, through the same
writer as a local run, so a killed run resumed as a job writes every answer exactly once.
The run's LLM budget holds across the workers (pipelines.scale.budget), seeded with what the
run already spent as the local gateway is; once spent, the run stops as a local one does.
"""

from __future__ import annotations

from dataclasses import replace

from data_access.writes import llm_log
from pipelines.judge.work import OFFLINE_BACKENDS, Slice, lexical_items, llm_requests, offline_batch
from pipelines.llm import Gateway
from pipelines.scale import Unit, make_executor
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import llm_unit, split_cached, write_llm_unit


def judge_on_executor(store, part: Slice, options, writer, executor=None) -> None:
    """Judge `part` on `executor` (default: the one `options.executor` names, closed after),
    writing through `writer` (run._VerdictWriter)."""
    if part.answers.empty:
        return
    owned = executor is None
    executor = executor or make_executor(options.executor, options.ray_address)
    try:
        if options.backend in OFFLINE_BACKENDS:
            _lexical(store, part, options, writer, executor)
        else:
            _llm(store, part, options, writer, executor)
    finally:
        if owned:
            executor.close()


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _lexical(store, part, options, writer, executor) -> None:
    items = lexical_items(part, options.gold)
    units = [
        Unit(f"{i}:{chunk[0][0]}", chunk)
        for i, chunk in enumerate(_chunks(items, options.batch_size))
    ]
    for outcome in executor.map_units(offline_batch(options.backend), units):
        with store.transaction() as cursor:
            if outcome.ok:
                verdicts, scores = outcome.value
                writer.write(cursor, verdicts, lexical=scores)
            else:
                chunk = next(u.payload for u in units if u.key == outcome.key)
                writer.write(cursor, [], [item[0] for item in chunk])
        if writer.should_stop():
            return


def _verdicts(part: Slice, results) -> list[tuple]:
    claims_of = dict(zip(part.answers.answer_id, part.answers.question_id))
    return [
        (
            r.item_id,
            claim["claim_id"],
            r.parsed[claim["ord"]].label,
            r.parsed[claim["ord"]].rationale or None,
        )
        for r in results
        if r.ok
        for claim in part.claims[claims_of[r.item_id]]
    ]


def _llm(store, part, options, writer, executor) -> None:
    config = options.config()
    requests = llm_requests(part, options)
    gateway = Gateway(store, config, writer.run_id, batch_size=options.batch_size)
    cached, fresh = split_cached(store, gateway, requests)
    if cached:  # replayed here: no call, the cache is the store's

        def on_batch(cursor, results) -> None:
            writer.write(cursor, _verdicts(part, results))

        gateway.run(cached, on_batch=on_batch)
    # The key stays out of the unit; a worker reads it from its environment.
    shared = {
        "config": replace(config, api_key=None),
        "run_id": writer.run_id,
        "mode": gateway.mode,
    }
    with batch_budget(executor, config, *_run_spending(store, writer.run_id)) as budget:
        try:
            _send(store, part, options, writer, executor, {**shared, "budget": budget}, fresh)
        finally:
            if budget is not None and budget_state(budget)["refused"]:
                writer.stopped = True  # as a local run whose gateway spent its budget


def _run_spending(store, run_id: str) -> tuple[float, int]:
    """What the run already spent (USD, tokens): a resumed run's budget starts from it."""
    usage = llm_log.run_usage(store, run_id)
    tokens = int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    return float(usage.get("cost_usd") or 0), tokens


def _send(store, part, options, writer, executor, shared, fresh) -> None:
    config = shared["config"]
    # Enough requests per unit to keep the worker's gateway concurrency busy.
    size = max(options.batch_size, 4 * config.concurrency)
    units = [
        Unit(f"{i}:{chunk[0].item_id}", {**shared, "requests": chunk})
        for i, chunk in enumerate(_chunks(fresh, size))
    ]
    for outcome in executor.map_units(llm_unit, units):
        with store.transaction() as cursor:
            if outcome.ok:
                write_llm_unit(cursor, writer.run_id, outcome.value)
                results = outcome.value.results
                writer.write(
                    cursor,
                    _verdicts(part, results),
                    [r.item_id for r in results if r.status == "failed"],
                )
            else:
                chunk = next(u.payload["requests"] for u in units if u.key == outcome.key)
                writer.write(cursor, [], [r.item_id for r in chunk])
        if writer.should_stop():
            return
