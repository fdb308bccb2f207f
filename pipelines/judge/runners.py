"""The judge backends' runners (`backends.JUDGE_BACKENDS`): each judges a slice of answers on an
executor (pipelines.scale) and writes every verdict through one `verdicts.VerdictWriter`.

`executor` None is a local run: the units run in this process, one after another
(`LocalExecutor`); a scale-out executor runs the same units on its workers. An offline backend
runs one unit per batch (MiniLM loaded once per worker). The openai backend replays the
answers whose replies the store caches in units here (each unit carries its replies) and sends
the rest in units on the executor, each with its own gateway (`work.judge_unit`,
pipelines.scale.llm_worker). Either way the driver writes each unit's rows, with the job's
progress, in one transaction, so a killed run resumed as a job writes every answer exactly
once; a job's stop is honoured between units.

The openai driver only plans (≤ 0.4 ms of its CPU per call): a unit carries its answers'
compact inputs (`work.judge_items` and their questions' claims), the unit renders the App. F.2
prompts, sends them and builds every row as Arrow tables; the driver asks the gateway for each
request's cache key once for the cache split (`work.judge_keys`) and inserts the tables, one
insert per table in one transaction per unit, with the store file held open across units
(`data_access.store.HeldFile`; a local run, whose units wait on the endpoint in this process,
lets it go after each write, as the gateway did between its batches). What a unit's gateway
learns comes back with its rows: the structured-output mode it stepped down to, which the
driver remembers for the endpoint and ships to the next units; a refused key, which ends the
dispatch and the run (`EndpointRefused`). The run's LLM budget holds across the units
(pipelines.scale.budget), seeded with what the run already spent; once spent, no unit is
dispatched and the run stops.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace

from data_access.store import HeldFile
from data_access.tables import llm_log
from data_access.tables.runs import run_usage
from pipelines.judge.backends import judge_backend
from pipelines.judge.work import (
    Slice,
    judge_items,
    judge_keys,
    judge_unit,
    lexical_items,
)
from pipelines.llm import EndpointRefused, Gateway
from pipelines.scale import LocalExecutor, Unit
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import write_llm_unit


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
    """The openai backend: the answers the store's cache holds replayed in units here, the
    rest in units on `executor` (here too when None), every unit written alike."""
    if part.answers.empty:
        return
    executor = executor or LocalExecutor()
    config = options.config()
    # A unit is at least a gateway batch (`batch_size` answers) and 4 answers per concurrency
    # slot: a unit's gateway ends on its last calls with slots idle (half its last round on
    # average), so fewer cost throughput. At the defaults (32, concurrency 8) both are 32.
    # On a local executor later units grow to last about the gateway's flush interval (up to
    # 8 x that), as a gateway wrote a batch of at least `batch_size` replies at most every
    # 0.5 s, or every 8 batches (`recording.FlushClock`): progress comes about as often as
    # it did, and a fast endpoint does not pay a unit's fixed costs every few calls.
    size = max(options.batch_size, 4 * config.concurrency)
    gateway = Gateway(store, config, writer.run_id, batch_size=size)
    with HeldFile(store) as held:  # (one open of the file for the plan and the replay)
        cached, fresh = _cache_split(store, part, options, gateway)
        spent = _run_spending(store, writer.run_id)
        with batch_budget(executor, config, *spent) as budget:
            units = _LLMUnits(store, part, options, writer, gateway, budget)
            try:
                # replayed here: the cache is the store's (a unit carries its replies)
                units.run(LocalExecutor(), units.cached(cached, 8 * size), held, known_new=False)
                here = executor.name == "local"
                pace = gateway.min_flush_interval_s if here else None
                if here:
                    # Its units wait on the endpoint in this process: the file is let go after
                    # each write, so other processes (the app) can use it meanwhile, as they
                    # could between a gateway's batches (units last about as long).
                    held.hold_s = 0.0
                    held.release_if_due()
                fresh_units = units.fresh(fresh, size, pace, config.concurrency)
                units.run(executor, fresh_units, held, known_new=True, here=here)
            finally:
                if budget is not None and budget_state(budget)["refused"]:
                    writer.stopped = True  # the run stops at its budget


def _cache_split(store, part: Slice, options, gateway: Gateway) -> tuple[list, list]:
    """(answers whose replies the store caches, as (item, cache key); the other answers)."""
    items = judge_items(part)
    # The split needs the gateway's key of each App. F.2 request (LF-VideoQA App. F.2):
    # rendered here only to be hashed (tens of us an answer), so a local run, a Ray run and a
    # resumed one share the store's cache. The requests sent are rendered in the units.
    keys = judge_keys(items, part.claims, options.prompt_version, gateway)
    hits = llm_log.cached_keys(store, keys)
    cached = [(item, key) for item, key in zip(items, keys) if key in hits]
    return cached, [item for item, key in zip(items, keys) if key not in hits]


def _run_spending(store, run_id: str) -> tuple[float, int]:
    """What the run already spent (USD, tokens): a resumed run's budget starts from it."""
    with store.session() as cursor:
        usage = run_usage(cursor, run_id)
    return usage.cost_usd, usage.tokens


class _LLMUnits:
    """The openai judge's units (`work.judge_unit`) and the one way their rows are written.

    A unit's payload is made when the executor takes it, so it carries what the run has
    learnt so far: the structured-output mode a unit negotiated (remembered in the store by
    the driver's gateway, `Gateway.adopt_mode`), and whether the endpoint has answered (then
    a unit's first call need not go alone). Dispatch ends when the job is asked to stop,
    when a unit's calls met the spent budget, or when the endpoint refused the key; the last
    is raised (`EndpointRefused`) once the refusing unit's rows are written.
    """

    def __init__(self, store, part: Slice, options, writer, gateway: Gateway, budget) -> None:
        self.store, self.part, self.writer, self.gateway = store, part, writer, gateway
        # The key stays out of the unit; a worker reads it from its environment.
        self.shared = {
            "config": replace(gateway.config, api_key=None),
            "run_id": writer.run_id,
            "version": options.prompt_version,
            "budget": budget,
        }
        self.answered = False
        self.dispatching = True
        self.rate: float | None = None  # answers a second of the last unit that ran
        self.items_of: dict[str, list[tuple]] = {}  # the answers of each unit not yet written
        self.written: set[str] = set()  # the cache keys this run wrote

    def cached(self, cached: list[tuple], size: int) -> Iterator[Unit]:
        """Units of answers whose replies the cache holds, each carrying its replies."""
        for i, chunk in enumerate(_chunks(cached, size)):
            if not self._may_dispatch():
                return
            replies = llm_log.lookup_cache(self.store, [key for _, key in chunk])
            yield self._unit(f"cached {i}:{chunk[0][0][0]}", [item for item, _ in chunk], replies)

    def fresh(
        self, fresh: list[tuple], size: int, pace_s: float | None = None, concurrency: int = 1
    ) -> Iterator[Unit]:
        """Units of `size` uncached answers: the answers' compact inputs (`judge_items`) and
        their questions' claims, from which the unit renders the prompts (`judge_unit`).

        `pace_s` (units run here, one at a time): each next unit holds what the last one's rate
        answers in about `pace_s`, in whole rounds of `concurrency`, from `size` to 8 x `size`.
        """
        start = 0
        for i in itertools.count():
            if start >= len(fresh) or not self._may_dispatch():
                return
            n = size
            if pace_s is not None and self.rate is not None:
                rounds = int(self.rate * pace_s) // concurrency
                n = min(8 * size, max(size, rounds * concurrency))
            chunk = fresh[start : start + n]
            start += n
            yield self._unit(f"{i}:{chunk[0][0]}", chunk)

    def _may_dispatch(self) -> bool:
        # (the job's stop as last asked, after the last write: `run`)
        return self.dispatching and not self.writer.stopped

    def _unit(self, key: str, items: list[tuple], replies: dict | None = None) -> Unit:
        claims = self.part.claims
        payload = {
            **self.shared,
            "mode": self.gateway.mode,
            "remembered": self.gateway.remembered_mode,
            "answered": self.answered,
            "items": items,
            "claims": {q: claims[q] for q in dict.fromkeys(item[1] for item in items)},
        }
        if replies is not None:
            payload["cache"] = replies
        self.items_of[key] = items
        return Unit(key, payload)

    def run(
        self,
        executor,
        units: Iterator[Unit],
        held: HeldFile,
        known_new: bool,
        here: bool = False,
    ) -> None:
        """Dispatch the units and write each one's rows as it returns, in one transaction: its
        cache entries, call rows and run usage, the mode it negotiated, verdicts and the
        job's progress, each table in one insert of the Arrow table the unit built.

        `known_new`: the units hold only answers whose keys the cache lacked (the split in
        `judge_llm`), so their cache rows go in with a plain INSERT
        (`llm_log.insert_cache_table`), less the keys this run has written since (two answers
        may share a prompt). A key another process cached meanwhile aborts the transaction,
        which is redone whole keeping the cache's first reply. `here`: the units run in this
        process (their rate sizes the next ones, `fresh`).
        """
        for outcome in executor.map_units(judge_unit, units):
            items = self.items_of.pop(outcome.key, [])
            if here and outcome.ok and outcome.seconds > 0:  # (a replay's rate says nothing)
                self.rate = len(items) / outcome.seconds
            held.hold()
            try:
                self.written |= self._write(outcome, items, self.written if known_new else None)
            except llm_log.CacheKeyTaken:
                self.written |= self._write(outcome, items, None)
            stop = self.writer.should_stop()  # (asked while the file is open: no reopening)
            held.release_if_due()
            rows = outcome.value.llm if outcome.ok else None
            if rows is not None and rows.refused is not None:
                raise EndpointRefused(rows.refused)
            if rows is not None and rows.skipped:
                self.dispatching = False  # the budget is spent: the units out still return
            self.answered = self.answered or (rows is not None and rows.sent)
            if stop:
                return

    def _write(self, outcome, items: list[tuple], written: set | None) -> set[str]:
        """Write one unit's outcome (`items`: its answers) in one transaction; the cache keys
        it wrote. `written`: the keys this run wrote before (a plain insert of the others), or
        None (insert or ignore)."""
        with self.store.transaction() as cursor:
            if not outcome.ok:
                self.writer.write(cursor, [], [item[0] for item in items])
                return set()
            value = outcome.value
            rows = value.llm if written is None else value.llm.without_cached(written)
            write_llm_unit(cursor, self.writer.run_id, rows, self.gateway, written is not None)
            self.writer.write(cursor, value.verdicts, value.failed)
        return rows.cache_keys()
