"""Workers kept between the executors of one driver (`pipelines.scale.kept_workers`): the next
executor gets the same processes, never one Ray restarted or one still busy with an abandoned
unit, and outside a `keep_workers()` block `close()` kills them as before.

The session's Ray (tests/support/ray_session.py) runs inside a `keep_workers()` block; marked
slow like the other Ray tests.
"""

from __future__ import annotations

import pytest

import pipelines.scale.kept_workers as kept_workers
from pipelines.scale import RayExecutor, Unit
from tests.support import scale_units as fns
from tests.support.ray_session import assert_actor_ends

pytestmark = pytest.mark.slow


def _pids(executor: RayExecutor, fn=fns.worker_pid) -> set:
    # enough units that both workers serve some (each takes at most two at once)
    units = [Unit(str(i), {"n": i, "sleep": 0.2}) for i in range(6)]
    return {o.value for o in executor.map_units(fn, units)}


def test_the_next_executor_gets_the_same_worker_processes(ray_session):
    first = RayExecutor()
    before = _pids(first, fns.sleep_then_pid)
    first.close()
    second = RayExecutor()
    try:
        assert second.workers == 2 and _pids(second, fns.sleep_then_pid) == before
    finally:
        second.close()


def test_a_worker_ray_restarted_is_not_handed_to_the_next_executor(ray_session, tmp_path):
    first = RayExecutor()
    units = [Unit(f"u{n}", {"n": n, "kill": 2, "dir": str(tmp_path)}) for n in range(6)]
    assert all(o.ok for o in first.map_units(fns.die_once, units))
    assert (tmp_path / "died-2").exists()
    before = dict(_pids(first, fns.worker_restarted))  # pid -> restarted by Ray
    assert sorted(before.values()) == [False, True]
    first.close()
    second = RayExecutor()
    try:
        after = dict(_pids(second, fns.worker_restarted))
        kept = [pid for pid, restarted in before.items() if not restarted]
        assert len(after) == 2 and not any(after.values())
        assert set(after) & set(before) == set(kept)  # the healthy one kept, the other new
    finally:
        second.close()


def test_workers_left_running_abandoned_units_are_killed(ray_session):
    import ray

    executor = RayExecutor()
    actors = list(executor._actors)
    units = [Unit(str(i), {"sleep": 5 if i else 0}) for i in range(4)]
    next(iter(executor.map_units(fns.sleep_then_pid, units)))  # the caller stops early
    executor.close()
    for actor in actors:
        assert_actor_ends(ray, actor, "reconstructed")
    assert kept_workers.take(ray, 2) == []


def test_outside_a_block_close_kills_the_workers(ray_session, monkeypatch):
    import ray

    monkeypatch.setattr(kept_workers, "_kept", None)
    executor = RayExecutor()
    actors = list(executor._actors)
    assert _pids(executor)
    executor.close()
    for actor in actors:
        assert_actor_ends(ray, actor, "reconstructed")
