"""How the executor seam schedules units: costliest first, prepared lazily on the driver, no
unit queued behind a busy worker at the end of a batch, and MiniLM loaded once per worker
("Models (MiniLM) load once per worker, not per task"), and a worker's start does
not import the store's modules."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipelines.scale import LocalExecutor, Unit, run_batch
from pipelines.scale.runner import longest_first
from tests.support import scale_units as fns
from tests.support.paths import REPO_ROOT


def test_the_actor_module_imports_without_the_store_modules():
    """A Ray worker imports `pipelines.scale.executor` to unpickle its actor class; pandas and
    DuckDB cost a fresh worker seconds on a loaded machine and only the driver needs them."""
    probe = (
        "import sys, pipelines.scale.executor, pipelines.scale; "
        "print(sorted(m for m in ('pandas', 'duckdb', 'data_access') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
    from pipelines import scale

    assert scale.run_batch is run_batch  # the batch loop still comes from the package


def test_longest_first_keeps_the_given_order_between_equal_costs():
    units = [Unit("a", 1, 2.0), Unit("b", 1, 9.0), Unit("c", 1, 2.0), Unit("d", 1)]
    assert [u.key for u in longest_first(units)] == ["b", "a", "c", "d"]


def test_a_batch_runs_the_costliest_first_and_prepares_each_unit_just_before_it_runs(store):
    events: list[str] = []

    def prepare(unit: Unit) -> Unit:
        events.append(f"prepare {unit.key}")
        return Unit(unit.key, {"n": int(unit.key[1:])}, unit.cost)

    def write(_cursor, outcome):
        events.append(f"write {outcome.key}")
        return outcome.value

    units = [Unit("u2", None, 1.0), Unit("u3", None, 30.0), Unit("u4", None, 5.0)]
    result = run_batch(
        store,
        LocalExecutor(),
        "test.sched",
        {},
        units,
        fns.square,
        write,
        prepare=prepare,
        lazy_prepare=True,
    )
    assert result.results == {"u2": 4, "u3": 9, "u4": 16}
    # Unit u4 is prepared only after u3 came back and was written: preparing is not a serial
    # pass over every unit before the first one runs.
    assert events == [
        "prepare u3",
        "write u3",
        "prepare u4",
        "write u4",
        "prepare u2",
        "write u2",
    ]
    # By default (the LLM steps: their prepare replays the cache) all are prepared first.
    events.clear()
    run_batch(
        store,
        LocalExecutor(),
        "test.sched",
        {"eager": 1},
        units,
        fns.square,
        write,
        prepare=prepare,
    )
    assert events == ["prepare u3", "prepare u4", "prepare u2", "write u3", "write u4", "write u2"]


@pytest.mark.slow
def test_the_last_unit_goes_to_the_idle_worker_not_behind_the_long_one(ray_executor):
    assert ray_executor.workers == 2
    units = [
        Unit("long", {"sleep": 2.0}),
        Unit("short-1", {"sleep": 0.05}),
        Unit("short-2", {"sleep": 0.05}),
    ]
    pids = {o.key: o.value for o in ray_executor.map_units(fns.sleep_then_pid, units)}
    # A unit queued behind "long" would have waited 2 s while the other worker sat idle.
    assert pids["short-2"] == pids["short-1"] != pids["long"]


@pytest.mark.slow
def test_minilm_loads_once_per_worker_not_per_unit(ray_executor):
    units = [Unit(str(i), None) for i in range(8)]
    loads = [o.value for o in ray_executor.map_units(fns.minilm_loads, units)]
    assert len(loads) == 8
    assert len({pid for pid, _ in loads}) == 2  # both workers ran units
    assert {count for _, count in loads} == {1}  # every unit found the worker's model loaded
