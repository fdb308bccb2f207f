"""The judge on an executor (`JudgeOptions.executor`): one work unit per answer batch.

The lexical backend sends each batch of `lexical_items` to a worker (MiniLM loaded once per
worker); the openai backend replays cached replies here and sends the rest to workers in
chunks, each worker with its own gateway (pipelines.scale.llm_worker). Either way the driver
writes each batch's verdicts, with the job's progress, in one transaction, through the same
writer as a local run, so a killed run resumed as a job writes every answer exactly once.
The run's LLM budget holds across the workers (pipelines.scale.budget), seeded with what the
run already spent as the local gateway is; once spent, the run stops as a local one does.

The openai driver only plans (issue 30: ≤ 0.4 ms of its CPU per call): an openai unit carries
its answers' compact inputs (`work.judge_items` and their questions' claims), the worker
renders the App. F.2 prompts, sends them and builds every row as Arrow tables
(`work.judge_unit`); the driver hashes each request once for the cache split and inserts the
tables, one insert per table in one transaction per unit, with the store file held open
across units (`_HeldFile`).
"""

from __future__ import annotations

import time
from dataclasses import replace

from data_access.writes import llm_log
from pipelines.judge.work import (
    OFFLINE_BACKENDS,
    Slice,
    judge_items,
    judge_keys,
    judge_request,
    judge_unit,
    lexical_items,
    offline_batch,
    verdict_rows,
)
from pipelines.llm import Gateway
from pipelines.scale import Unit, make_executor
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import write_unit_rows

# How long the driver keeps the store file open across units' writes (`_HeldFile`). Each
# open and close costs the driver ~50 ms of CPU (DuckDB's start-up, and the checkpoint of what
# the hold wrote) whatever the call rate: 0.05 of a core at one a second, a quarter of issue
# 30's 0.2-core budget at 500 calls/s. Every 2 s halves it; another process (the app) waits
# at most that long plus a write for the file during a scaled judge run.
HOLD_S = 2.0


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


def _llm(store, part, options, writer, executor) -> None:
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
    with _HeldFile(store) as held:
        for chunk in _chunks(cached, 8 * size):  # replayed here: the cache is the store's
            held.hold()
            _replay(gateway, part, options, writer, chunk)
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


def _replay(gateway, part, options, writer, cached: list[tuple]) -> None:
    """Replay the cached answers through the driver's gateway (its writes: call rows and
    verdicts, one transaction per batch)."""
    claims_of = {item[0]: part.claims[item[1]] for item in cached}

    def on_batch(cursor, results) -> None:
        failed = [r.item_id for r in results if r.status == "failed"]
        writer.write(cursor, verdict_rows(results, claims_of), failed)

    requests = [
        judge_request(item, part.claims[item[1]], options.prompt_version) for item in cached
    ]
    gateway.run(requests, on_batch=on_batch)


def _run_spending(store, run_id: str) -> tuple[float, int]:
    """What the run already spent (USD, tokens): a resumed run's budget starts from it."""
    usage = llm_log.run_usage(store, run_id)
    tokens = int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    return float(usage.get("cost_usd") or 0), tokens


def _units(part, fresh: list[tuple], size: int, shared: dict) -> list[Unit]:
    """One unit per `size` uncached answers: the answers' compact inputs (`judge_items`) and
    their questions' claims, from which the worker renders the prompts (`judge_unit`)."""
    units = []
    for i, chunk in enumerate(_chunks(fresh, size)):
        claims = {q: part.claims[q] for q in dict.fromkeys(item[1] for item in chunk)}
        payload = {**shared, "items": chunk, "claims": claims}
        units.append(Unit(f"{i}:{chunk[0][0]}", payload))
    return units


def _send(store, writer, executor, units: list[Unit], held: _HeldFile) -> None:
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


class _HeldFile:
    """Keeps the store file open across the units' transactions, up to `hold_s` at a time.

    Each `store.transaction()` opens the DuckDB file and closes it after (so other processes,
    the app, can use it between): 30-40 ms of CPU per open and close at this machine's load,
    ~0.3 ms per call with a unit of 128 calls, most of the driver's write cost. Held open, the
    units' transactions reuse one connection; once it has been held `hold_s` seconds it is let
    go after a unit's write and taken again only at the next unit's write (`hold`), so another
    process gets the file while the driver waits for that unit (taking it again at once left
    a waiting reader a window of a few milliseconds a second).
    """

    def __init__(self, store, hold_s: float = HOLD_S) -> None:
        self.store, self.hold_s = store, hold_s
        self._session = None
        self._since = 0.0

    def __enter__(self) -> _HeldFile:
        self.hold()
        return self

    def __exit__(self, *exc) -> None:
        self._release()

    def hold(self) -> None:
        """Hold the file (again, if `release_if_due` let it go)."""
        if self._session is None:
            self._session = self.store.session()
            self._session.__enter__()
            self._since = time.monotonic()

    def _release(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.__exit__(None, None, None)

    def release_if_due(self) -> None:
        """Let other processes in if the file was held `hold_s` (until the next `hold`)."""
        if time.monotonic() - self._since >= self.hold_s:
            self._release()
