"""Run a batch of units on an executor with the driver as the store's single writer.

`run_batch` is the loop every scaled-out pipeline calls: it finds (or records) the batch in the
unit ledger (`data_access.tables.unit_ledger`), skips units a killed run of the same command already
wrote, hands the rest to the executor, and writes each unit's rows together with its ledger
row in one transaction. So a run killed at any point (driver or worker) and started again with
the same command writes every unit exactly once; failed units are retried by that rerun.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from data_access.store import Store
from data_access.tables import unit_ledger
from pipelines.scale.executor import Executor, Unit, UnitFn, UnitOutcome

# write(cursor, outcome) writes a finished unit's rows and returns what the batch must keep
# for a later step (JSON-able, stored in the unit_ledger), or None; or `Unfinished(reason)` when it
# wrote what the unit did but the unit is not done (e.g. the LLM budget stopped it).
UnitWriter = Callable[[duckdb.DuckDBPyConnection, UnitOutcome], Any]
ProgressFn = Callable[["BatchProgress"], None]


@dataclass(frozen=True)
class Unfinished:
    """A writer's answer for a unit that came back but is not done: its partial work (call
    log, a stopped run) is written, and the ledger records it failed with `reason`, so the
    same command resumes it.

    `ends_batch`: no later unit can succeed either (an LLM endpoint refused the key). The
    batch dispatches nothing more and raises it once the unit is recorded; the batch stays
    open, so the same command resumes it once the cause is fixed.
    """

    reason: str
    ends_batch: Exception | None = None


@dataclass
class BatchProgress:
    """Units done / failed / total so far, and the outcome that just arrived."""

    done: int
    failed: int
    total: int
    last: UnitOutcome | None = None


@dataclass
class BatchResult:
    """What a batch did: counts, failures with reasons, and every done unit's kept result."""

    batch_id: str
    executor: str
    workers: int
    total: int
    done: int
    failed: int
    resumed_from: int  # units already written by an earlier attempt (skipped now)
    wall_s: float
    failures: list[tuple[str, str]] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    budget: dict | None = None  # the shared LLM budget's limits and spending, when one was set
    # runs a killed driver had opened for its units in flight, closed as failed on this resume
    abandoned_runs: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.done == self.total


def batch_key(step: str, params: dict[str, Any], unit_keys: Sequence[str]) -> str:
    """Same command (step, params, units) -> same key, so a rerun finds its killed batch."""
    text = json.dumps([step, params, sorted(unit_keys)], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def longest_first(units: Sequence[Unit]) -> list[Unit]:
    """The units by falling `cost`, ties in the given order (so equal costs keep it)."""
    return sorted(units, key=lambda unit: -unit.cost)


class PreparedUnits:
    """The units to run, each passed through `prepare` only when the executor takes it.

    Why lazily: preparing can take the driver seconds per unit (reading a film's timeline,
    replaying a unit's LLM calls from the cache); done all up front it kept every worker idle
    until the last unit was ready. `__length_hint__` tells the executor how many remain.
    """

    def __init__(self, units: Sequence[Unit], prepare: Callable[[Unit], Unit] | None) -> None:
        self._units, self._prepare, self._next = units, prepare, 0

    def __iter__(self) -> PreparedUnits:
        return self

    def __next__(self) -> Unit:
        if self._next >= len(self._units):
            raise StopIteration
        unit = self._units[self._next]
        self._next += 1
        return unit if self._prepare is None else self._prepare(unit)

    def __length_hint__(self) -> int:
        return len(self._units) - self._next


def run_batch(
    store: Store,
    executor: Executor,
    step: str,
    params: dict[str, Any],
    units: Sequence[Unit],
    fn: UnitFn,
    write: UnitWriter,
    progress: ProgressFn | None = None,
    prepare: Callable[[Unit], Unit] | None = None,
    on_start: Callable[[str], None] | None = None,
    finish: Callable[[duckdb.DuckDBPyConnection, dict[str, Any]], None] | None = None,
    lazy_prepare: bool = False,
) -> BatchResult:
    """Run `fn` over the units not yet written, writing each unit as it comes back.

    Units go out costliest first (`Unit.cost`). `prepare(unit)` (optional) turns a unit still
    to run into the one to send, on the driver (e.g. read the film's timeline, start the
    unit's LLM run); units already written are never prepared, so a resumed batch redoes
    nothing for them. By default every unit is prepared before the first is dispatched; with
    `lazy_prepare` each is prepared as a worker takes it, while the workers run the earlier
    ones. Lazy suits a prepare that only reads inputs (PlotTree's timelines). The LLM steps
    keep the default: their prepare replays the store's cache, and done lazily a unit would
    find replies that earlier units wrote meanwhile, so which calls a run makes would depend
    on the executor's timing (a local run and a Ray run would log different calls).
    `on_start(batch_id)` is called once the batch is found or recorded, before anything is
    prepared (a step whose units share one run names it after the batch; a step that opens a
    run per unit starts it with `scale_units.start_unit_run`, so that when a killed driver left
    it `running`, the resume closes it as failed before the unit runs again).
    `finish(cursor, results)` writes what needs every unit (e.g. a run's analytics), in the
    transaction that closes the batch: a run killed before it has every unit done and
    finishes on resume.
    """
    started = time.perf_counter()
    key = batch_key(step, params, [u.key for u in units])
    batch_id = unit_ledger.open_batch(store, key)
    abandoned: list[str] = []
    if batch_id is None:
        batch_id = unit_ledger.create_batch(
            store, key, step, executor.name, executor.workers, len(units), params
        )
    else:
        unit_ledger.mark_attempt(store, batch_id, executor.name, executor.workers)
        abandoned = unit_ledger.close_abandoned_runs(store, batch_id)
    if on_start is not None:
        on_start(batch_id)
    results = unit_ledger.done_units(store, batch_id)
    resumed_from = len(results)
    todo = longest_first([u for u in units if u.key not in results])
    if prepare is not None and not lazy_prepare:
        todo = [prepare(u) for u in todo]
    failures: list[tuple[str, str]] = []
    lazily = prepare if lazy_prepare else None
    for outcome in executor.map_units(fn, PreparedUnits(todo, lazily)):
        ends_batch = None
        with store.transaction() as cursor:
            kept = write(cursor, outcome) if outcome.ok else None
            if isinstance(kept, Unfinished):
                outcome.error, ends_batch, kept = kept.reason, kept.ends_batch, None
            unit_ledger.record_unit(
                cursor, batch_id, outcome.key, outcome.error, outcome.worker, outcome.seconds, kept
            )
        if outcome.ok:
            results[outcome.key] = kept
        else:
            failures.append((outcome.key, outcome.error or "failed"))
        if progress is not None:
            progress(BatchProgress(len(results), len(failures), len(units), outcome))
        if ends_batch is not None:
            raise ends_batch
    if len(results) == len(units):
        with store.transaction() as cursor:
            if finish is not None:
                finish(cursor, results)
            unit_ledger.finish_batch(cursor, batch_id)
    return BatchResult(
        batch_id,
        executor.name,
        executor.workers,
        len(units),
        len(results),
        len(failures),
        resumed_from,
        time.perf_counter() - started,
        failures,
        results,
        abandoned_runs=abandoned,
    )
