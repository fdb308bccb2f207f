"""The judge backends' runners (`backends.JUDGE_BACKENDS`): each judges a slice of answers on an
executor (pipelines.scale) and writes every verdict through one `verdicts.VerdictWriter`.

`executor` None is a local run: the units run in this process, one after another
(`LocalExecutor`). An offline backend runs the same units on any executor (MiniLM loaded once
per worker). The openai backend on a local run sends every request through the driver's own
gateway, which writes each batch of replies as it comes (progress, a stop, a refused key and
the negotiated output mode all as they happen); on a scale-out executor it replays cached
replies here and sends the rest to workers in chunks, each worker with its own gateway
(pipelines.scale.llm_worker). Either way the driver writes each batch's verdicts, with the
job's progress, in one transaction, so a killed run resumed as a job writes every answer
exactly once. The run's LLM budget holds across the workers (pipelines.scale.budget), seeded
with what the run already spent as the local gateway is; once spent, the run stops as a
local one does.

The scaled openai driver only plans (≤ 0.4 ms of its CPU per call): a unit carries its
answers' compact inputs (`work.judge_items` and their questions' claims), the worker renders
the App. F.2 prompts, sends them and builds every row as Arrow tables (`work.judge_unit`);
the driver asks the gateway for each request's cache key once for the cache split
(`work.judge_keys`) and inserts the tables, one insert per table in one transaction per unit,
with the store file held open across units (`data_access.store.HeldFile`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from data_access.store import HeldFile
from data_access.tables import llm_log
from data_access.tables.runs import run_usage
from pipelines.judge.backends import judge_backend
from pipelines.judge.verdicts import verdict_rows
from pipelines.judge.work import (
    Slice,
    judge_items,
    judge_keys,
    judge_request,
    judge_unit,
    lexical_items,
)
from pipelines.llm import Gateway
from pipelines.scale import LocalExecutor, Unit
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import write_unit_rows


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def judge_offline(store, part: Slice, options, writer, executor=None) -> None:
    """An offline backend (`lexical`, `minilm-support`): one unit per `batch_size` answers,
    each the backend's pure batch function (`JudgeBackend.unit`), written as it returns."""
    if part.answers.empty:
        return
    items = lexical_items(part, options.gold)
    units = [
        Unit(f"{i}:{chunk[0][0]}", chunk)
        for i, chunk in enumerate(_chunks(items, options.batch_size))
    ]
    unit = judge_backend(options.backend).unit_function()
    for outcome in (executor or LocalExecutor()).map_units(unit, _until_stopped(units, writer)):
        with store.transaction() as cursor:
            if outcome.ok:
                verdicts, scores = outcome.value
                writer.write(cursor, verdicts, lexical=scores)
            else:
                chunk = next(u.payload for u in units if u.key == outcome.key)
                writer.write(cursor, [], [item[0] for item in chunk])


def _until_stopped(units: list[Unit], writer) -> Iterator[Unit]:
    """The units, each handed out only while the job was not asked to stop (an executor
    takes units as it has room, so a stop ends the dispatch; what runs is still written)."""
    for unit in units:
        if writer.should_stop():
            return
        yield unit


def judge_llm(store, part: Slice, options, writer, executor=None) -> None:
    """The openai backend: through the driver's gateway on a local run (`executor` None),
    else cached replies here and the rest in units on `executor`."""
    if part.answers.empty:
        return
    if executor is None:
        gateway = Gateway(store, options.config(), writer.run_id, batch_size=options.batch_size)
        _through_gateway(gateway, part, options, writer, judge_items(part))
        return
    _scaled_llm(store, part, options, writer, executor)


def _scaled_llm(store, part, options, writer, executor) -> None:
    config = options.config()
    # Enough answers per unit to keep the worker's gateway concurrency busy.
    size = max(options.batch_size, 4 * config.concurrency)
    gateway = Gateway(store, config, writer.run_id, batch_size=size)
    items = judge_items(part)
    # The cache split needs the gateway's key of each App. F.2 request (LF-VideoQA App. F.2):
    # rendered here only to be hashed (tens of us an answer), so a local run, a Ray run and a
    # resumed one share the store's cache. The requests sent are rendered on the workers.
    keys = judge_keys(items, part.claims, options.prompt_version, gateway)
    hits = llm_log.cached_keys(store, keys)
    cached = [item for item, key in zip(items, keys) if key in hits]
    fresh = [item for item, key in zip(items, keys) if key not in hits]
    with HeldFile(store) as held:
        for chunk in _chunks(cached, 8 * size):  # replayed here: the cache is the store's
            held.hold()
            _through_gateway(gateway, part, options, writer, chunk)
            held.release_if_due()
        # The key stays out of the unit; a worker reads it from its environment.
        shared = {
            "config": replace(config, api_key=None),
            "run_id": writer.run_id,
            "mode": gateway.mode,
            "version": options.prompt_version,
        }
        spent = _run_spending(store, writer.run_id)
        with batch_budget(executor, config, *spent) as budget:
            try:
                units = _units(part, fresh, size, {**shared, "budget": budget})
                _send(store, writer, executor, units, held)
            finally:
                if budget is not None and budget_state(budget)["refused"]:
                    writer.stopped = True  # as a local run whose gateway spent its budget


def _through_gateway(gateway, part, options, writer, items: list[tuple]) -> None:
    """Judge `items` (`judge_items`) through the driver's gateway: it replays what the store
    caches and sends the rest, and each batch's verdicts are written in the transaction of
    its call rows. A stop asked of the job stops the gateway; a spent budget stops the run."""
    claims_of = {item[0]: part.claims[item[1]] for item in items}

    def on_batch(cursor, results) -> None:
        failed = [r.item_id for r in results if r.status == "failed"]
        writer.write(cursor, verdict_rows(results, claims_of), failed)
        if writer.should_stop():
            gateway.stop("stopped")

    requests = [judge_request(item, part.claims[item[1]], options.prompt_version) for item in items]
    gateway.run(requests, on_batch=on_batch)
    if gateway.stop_reason == "budget":
        writer.stopped = True


def _run_spending(store, run_id: str) -> tuple[float, int]:
    """What the run already spent (USD, tokens): a resumed run's budget starts from it."""
    with store.session() as cursor:
        usage = run_usage(cursor, run_id)
    return usage.cost_usd, usage.tokens


def _units(part, fresh: list[tuple], size: int, shared: dict) -> list[Unit]:
    """One unit per `size` uncached answers: the answers' compact inputs (`judge_items`) and
    their questions' claims, from which the worker renders the prompts (`judge_unit`)."""
    units = []
    for i, chunk in enumerate(_chunks(fresh, size)):
        claims = {q: part.claims[q] for q in dict.fromkeys(item[1] for item in chunk)}
        payload = {**shared, "items": chunk, "claims": claims}
        units.append(Unit(f"{i}:{chunk[0][0]}", payload))
    return units


def _send(store, writer, executor, units: list[Unit], held: HeldFile) -> None:
    """Dispatch the units and write each one's rows as it returns, in one transaction: its
    cache entries, call rows and run usage, verdicts and the job's progress, each table in
    one insert of the Arrow table the worker built.

    The cache rows go in with a plain INSERT (`llm_log.insert_cache_table`'s `known_new`): the
    units hold only answers whose keys the cache lacked (`_llm`'s split), less the keys this
    run has written since (two answers may share a prompt). A key another process cached
    meanwhile aborts the transaction, which is redone whole keeping the cache's first reply.
    """
    written: set[str] = set()
    for outcome in executor.map_units(judge_unit, units):
        held.hold()
        try:
            written |= _write_outcome(store, writer, units, outcome, written)
        except llm_log.CacheKeyTaken:
            written |= _write_outcome(store, writer, units, outcome, None)
        held.release_if_due()
        if writer.should_stop():
            return


def _write_outcome(store, writer, units: list[Unit], outcome, written: set | None) -> set[str]:
    """Write one unit's outcome in one transaction; the cache keys it wrote. `written`: the
    keys this run wrote before (a plain insert of the others), or None (insert or ignore)."""
    with store.transaction() as cursor:
        if not outcome.ok:
            chunk = next(u.payload["items"] for u in units if u.key == outcome.key)
            writer.write(cursor, [], [item[0] for item in chunk])
            return set()
        value = outcome.value
        rows = value.llm if written is None else value.llm.without_cached(written)
        write_unit_rows(cursor, writer.run_id, rows, known_new=written is not None)
        writer.write(cursor, value.verdicts, value.failed)
    return rows.cache_keys()
