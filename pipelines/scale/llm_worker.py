"""LLM calls on a worker: each worker its own gateway, the store's cache kept on the driver.

The driver looks every request up in the store's cache before dispatch (`split_cached`),
replays the hits itself, and sends the misses to workers in chunks. A worker runs them through
a `WorkerGateway` (the project's gateway: same structured-output modes, retries, backoff and
concurrency) that records what it would have written (cache entries, call rows) instead of
opening the store; the driver writes them with the unit's rows (`llm_log.record_batch`), so
the cache is filled from the results and the call log reads as a local run's would.

The API key never travels with a unit: a worker reads it from its own environment (an
embedded Ray's workers inherit the driver's; on a cluster set it on the nodes, docs/SCALE.md).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace

from data_access import llm_log
from pipelines.llm import Gateway, LLMRequest


class _NoStore:
    """Stands in for the store on a worker: the gateway may hold a session, never query."""

    @contextmanager
    def session(self):
        yield None


class WorkerGateway(Gateway):
    """A gateway that collects its cache entries and call rows for the driver to write."""

    def __init__(self, config, run_id: str, mode: str | None = None) -> None:
        # use_cache=False: the driver already replayed every cached request.
        super().__init__(_NoStore(), config, run_id, use_cache=False, batch_size=1_000_000)
        # The structured-output mode the driver's gateway would use (remembered per endpoint
        # in the store, which a worker cannot read); a step-down here is not remembered.
        self._mode = mode
        self.entries: list = []
        self.calls: list[dict] = []

    def _seed_spent(self) -> None:
        pass  # the run's spending lives in the store; the driver enforces the budget

    def _flush(self, requests, pending, on_batch) -> None:
        batch = list(pending)
        pending.clear()
        self.entries += [self._cache_entry(r) for r in batch if r.ok and not r.cached]
        self.calls += [self._call_row(r) for r in batch if r.status != "skipped"]


@dataclass
class LLMUnitResult:
    """A worker's answers to one chunk, and what the driver writes for them."""

    results: list
    entries: list
    calls: list[dict]


def llm_unit(payload: dict) -> LLMUnitResult:
    """Work unit: send a chunk of requests through this worker's gateway (no store)."""
    config = payload["config"]
    if config.api_key is None:
        from pipelines.llm import load_config

        config = replace(config, api_key=load_config({"model": config.model}).api_key)
    gateway = WorkerGateway(config, payload["run_id"], payload.get("mode"))
    results = gateway.run(payload["requests"])
    return LLMUnitResult(results, gateway.entries, gateway.calls)


def split_cached(store, gateway: Gateway, requests: list[LLMRequest]):
    """(requests with a cached reply, requests that need a call), by the store's cache."""
    keys = [gateway.key_of(r) for r in requests]
    hits = llm_log.lookup_cache(store, keys)
    cached = [r for r, k in zip(requests, keys) if k in hits]
    return cached, [r for r, k in zip(requests, keys) if k not in hits]


def write_llm_unit(cursor, run_id: str, value: LLMUnitResult) -> None:
    """Record a unit's cache entries, call rows and run usage (the gateway's own write)."""
    llm_log.record_batch(cursor, run_id, value.entries, value.calls)
