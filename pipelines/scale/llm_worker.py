"""LLM calls on a worker: each worker its own gateway, the store's cache kept on the driver.

The driver looks every request up in the store's cache before dispatch (`split_cached`),
replays the hits itself, and sends the misses to workers in chunks. A worker runs them through
a `WorkerGateway` (the project's gateway: same structured-output modes, retries, backoff and
concurrency) that records what it would have written (cache entries, call rows) instead of
opening the store; the driver writes them with the unit's rows (`llm_log.record_batch`), so
the cache is filled from the results and the call log reads as a local run's would.

A step whose calls depend on earlier replies (belief annotation: each stage's prompt holds what
the last one found) cannot list its requests before dispatch. For those the driver replays the
unit against the store's cache until the first miss (`replay_until_miss`) and ships the hits
with the unit; the worker's gateway answers from them first (`cache=`), so a rerun sends only
the calls the cache does not hold.

Every LLM step's unit returns its rows the same way (`LLMUnitRows`, built by `unit_rows`) and
the driver writes them the same way (`write_llm_unit`). What a local gateway would remember or
act on as it goes comes back with them: the structured-output mode the worker's gateway
stepped down to, which the driver remembers for the endpoint (`Gateway.adopt_mode`) and, where
units are made as they are dispatched (the judge), ships to its next units; and a refused key
(a `WorkerGateway` reports it instead of raising), on which the driver ends the dispatch
(`unit_unfinished`: the batch raises `EndpointRefused` once the unit is written). Once the
endpoint has answered the run, a judge unit's first call need not go alone.

One budget holds across all workers (`pipelines.scale.budget`): a unit's payload carries a
handle to it, and the worker's gateway asks it before each call and charges it after.

The API key never travels with a unit: a worker reads it from its own environment (an
embedded Ray's workers inherit the driver's; on a cluster set it on the nodes, docs/SCALE.md).
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from data_access.tables import llm_log
from pipelines.llm import EndpointRefused, Gateway, LLMRequest, LLMResult
from pipelines.scale.budget import BUDGET_REASON, budget_left, charge_budget
from pipelines.scale.runner import Unfinished


class _NoStore:
    """Stands in for the store on a worker: the gateway may hold a session, never query."""

    @contextmanager
    def session(self):
        yield None


class WorkerGateway(Gateway):
    """A gateway that collects its cache entries and call rows for the driver to write.

    A refusal of the endpoint is reported (`refused`), not raised: the refused request comes
    back failed and every later one `skipped`, so a unit's stages end as at a spent budget and
    the driver writes what the unit did before it ends the batch (`unit_unfinished`)."""

    raises_refusal = False

    def __init__(
        self,
        config,
        run_id: str,
        mode: str | None = None,
        cache: dict[str, dict] | None = None,
        budget=None,
        remembered: str | None = None,
        answered: bool = False,
    ) -> None:
        # The store's cache is not here: only what the driver shipped (`cache`) is replayed.
        super().__init__(_NoStore(), config, run_id, use_cache=True, batch_size=1_000_000)
        # The structured-output mode the driver's gateway would use (remembered per endpoint
        # in the store, which a worker cannot read), and the mode the store remembers: a mode
        # that answered and is not the remembered one is reported (`negotiated`) for the
        # driver to remember (`Gateway.adopt_mode`).
        self._mode = mode
        self._remembered = remembered
        if answered:  # the endpoint answered this run before: no first call alone
            self._answered = asyncio.Event()
            self._answered.set()
        self._shipped = cache or {}
        self._budget = budget
        self.entries: list = []
        self.calls: list[dict] = []
        self.results: list[LLMResult] = []  # every result, as it was recorded
        self.skipped = 0  # requests not sent (the budget was spent, or the key refused)
        self.negotiated: tuple[str, str | None] | None = None  # (mode, why) to remember

    def _seed_spent(self) -> None:
        pass  # the run's spending lives in the store; the shared budget holds the batch's

    def _lookup(self, keys: list[str]) -> dict[str, dict]:
        return {key: self._shipped[key] for key in keys if key in self._shipped}

    async def _call(self, client, request: LLMRequest, key: str):
        budgeted = self._budget is not None and not self._stop.is_set()
        if budgeted and not await budget_left(self._budget):
            self.stop("budget")
        result = await super()._call(client, request, key)
        if self._budget is not None and result.attempts:
            await charge_budget(self._budget, result.usage.tokens, result.usage.cost_usd)
        return result

    def _flush(self, requests, pending, on_batch) -> None:
        batch = list(pending)
        pending.clear()
        self.results += batch
        self.skipped += sum(r.status == "skipped" for r in batch)
        if self._mode_to_save is not None:
            self.negotiated, self._mode_to_save = (self._mode_to_save, self._mode_reason), None
        self.entries += [self._cache_entry(r) for r in batch if r.ok and not r.cached]
        self.calls += [self._call_row(r) for r in batch if r.status != "skipped"]


@dataclass
class LLMUnitRows:
    """A worker's cache entries and call rows as Arrow tables (`llm_log.cache_table`,
    `llm_log.calls_table`), built on the worker: the driver inserts them as they come
    (`write_llm_unit`), with no work per row. Arrow tables also travel back cheaper than
    the results' Python objects."""

    cache: Any
    calls: Any
    skipped: int = 0  # requests not sent (the budget was spent, or the key refused)
    # The structured-output mode that answered, when the store does not remember it yet (a
    # step-down here): (mode, why), for the driver's `Gateway.adopt_mode`.
    negotiated: tuple[str, str | None] | None = None
    refused: str | None = None  # the endpoint refused the run (`EndpointRefused`'s message)

    @property
    def sent(self) -> bool:
        """True when one of the unit's requests reached the endpoint (not only replays)."""
        attempts = self.calls["attempts"] if self.calls.num_rows else None
        return attempts is not None and (pc.max(attempts).as_py() or 0) > 0

    def cache_keys(self) -> set[str]:
        return set(self.cache["cache_key"].to_pylist())

    def without_cached(self, keys: set[str]) -> LLMUnitRows:
        """These rows less the cache entries whose key is in `keys` (written already)."""
        fresh = [key not in keys for key in self.cache["cache_key"].to_pylist()]
        if all(fresh):
            return self
        return replace(self, cache=self.cache.filter(pa.array(fresh, pa.bool_())))


def unit_rows(gateway: WorkerGateway) -> LLMUnitRows:
    """What `gateway` would have written, as the tables the driver inserts."""
    return LLMUnitRows(
        llm_log.cache_table(gateway.entries),
        llm_log.calls_table(gateway.calls),
        gateway.skipped,
        gateway.negotiated,
        gateway.refused,
    )


@dataclass
class LLMUnitResult:
    """A worker's answers to one chunk of requests (`llm_unit`), and its rows to write."""

    results: list[LLMResult]
    llm: LLMUnitRows


def budget_reason(skipped: int) -> str:
    """The failure reason of a unit whose calls the budget refused."""
    return f"{BUDGET_REASON}: {skipped} call(s) not sent; rerun with a larger budget to resume"


def worker_config(config):
    """The unit's config with the key read from this worker's environment (never shipped)."""
    if config.api_key is not None:
        return config
    from pipelines.llm import load_config

    return replace(config, api_key=load_config({"model": config.model}).api_key)


def driver_gateway(store, config, run_id: str = "") -> Gateway:
    """The gateway on a batch's driver that remembers its units' step-downs
    (`write_llm_unit`). Its mode is read from the store here, outside any unit's transaction."""
    gateway = Gateway(store, config, run_id)
    _ = gateway.mode
    return gateway


def unit_payload(driver: Gateway, run_id: str, budget) -> dict:
    """The LLM part of a unit's payload (`unit_gateway` reads it): the config without the key
    (a worker reads its own), the run, the mode the driver's gateway sends in and the mode the
    store remembers (so a worker reports only a step-down, `LLMUnitRows.negotiated`), and the
    batch's shared budget."""
    return {
        "config": replace(driver.config, api_key=None),
        "run_id": run_id,
        "mode": driver.mode,
        "remembered": driver.remembered_mode,
        "budget": budget,
    }


def unit_gateway(payload: dict) -> WorkerGateway:
    """The worker's gateway for a unit whose payload carries config, run_id, mode, and
    optionally the shipped cache hits, the shared budget, the mode the store remembers and
    whether the endpoint has answered this run already."""
    return WorkerGateway(
        worker_config(payload["config"]),
        payload["run_id"],
        payload.get("mode"),
        cache=payload.get("cache"),
        budget=payload.get("budget"),
        remembered=payload.get("remembered"),
        answered=payload.get("answered", False),
    )


def llm_unit(payload: dict) -> LLMUnitResult:
    """Work unit: send a chunk of requests through this worker's gateway (no store); a refused
    key comes back in the rows (`LLMUnitRows.refused`) with what was answered before it."""
    gateway = unit_gateway(payload)
    results = gateway.run(payload["requests"])
    return LLMUnitResult(results, unit_rows(gateway))


def requests_unit(
    store, config, run_id: str, requests: list[LLMRequest], budget
) -> tuple[dict, list[LLMResult]]:
    """A unit of independent `requests` for `llm_unit`: the ones the store's cache holds are
    replayed here, on the driver (their results, logged under `run_id`), the rest go in the
    payload (with the gateway's settings, `unit_payload`; never the key)."""
    gateway = Gateway(store, config, run_id)
    cached, fresh = split_cached(store, gateway, requests)
    replayed = gateway.run(cached) if cached else []
    return {**unit_payload(gateway, run_id, budget), "requests": fresh}, replayed


def split_cached(store, gateway: Gateway, requests: list[LLMRequest]):
    """(requests with a cached reply, requests that need a call), by the store's cache."""
    keys = [gateway.key_of(r) for r in requests]
    hits = llm_log.cached_keys(store, keys)  # (the replies are read when replayed)
    cached = [r for r, k in zip(requests, keys) if k in hits]
    return cached, [r for r, k in zip(requests, keys) if k not in hits]


def write_llm_unit(
    cursor, run_id: str, rows: LLMUnitRows, driver: Gateway, known_new: bool = False
) -> None:
    """Write a unit's cache entries and call rows under `run_id`, one insert per table, and
    remember the mode it stepped down to for the endpoint (`driver`: the driver's gateway,
    `Gateway.adopt_mode`), as a local gateway writes and remembers them. `known_new`: the
    unit's cache keys were not in the cache when it was sent (`llm_log.insert_cache_table`)."""
    llm_log.record_tables(cursor, run_id, rows.cache, rows.calls, known_new)
    if rows.negotiated is not None:
        driver.adopt_mode(cursor, *rows.negotiated)


def unit_unfinished(rows: LLMUnitRows) -> Unfinished | None:
    """Why a unit whose rows are written is not done, for `run_batch`: the endpoint refused
    the key (the batch ends: every later unit would be refused too, as a local run stops at
    the first refusal), or the budget stopped its calls (the same command resumes it)."""
    if rows.refused is not None:
        return Unfinished(rows.refused, ends_batch=EndpointRefused(rows.refused))
    if rows.skipped:
        return Unfinished(budget_reason(rows.skipped))
    return None


class CacheReplayGateway(Gateway):
    """On the driver: answers from the store's cache only. The first request the cache does not
    hold comes back `skipped` and stops the gateway, so a step whose calls depend on earlier
    replies walks as far as the cache reaches; `hits` is what to ship with the unit.
    Nothing is written (the worker's call log is the one recorded)."""

    def __init__(self, store, config, mode: str | None = None) -> None:
        super().__init__(store, config, run_id="", batch_size=1_000_000)
        if mode is not None:
            self._mode = mode
        self.hits: dict[str, dict] = {}

    def _seed_spent(self) -> None:
        pass

    async def _send_all(self, requests, keys, fresh, results, pending, on_batch) -> None:
        for index in fresh:
            results[index] = LLMResult(
                requests[index].item_id, "skipped", cache_key=keys[index], error="not cached"
            )
        self.stop("not cached")

    def _flush(self, requests, pending, on_batch) -> None:
        self.hits.update({r.cache_key: {"content": r.raw} for r in pending if r.cached})
        pending.clear()
