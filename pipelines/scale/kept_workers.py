"""Ray workers kept between the executors of one driver (`keep_workers`).

A `RayExecutor` starts its actors and its `close()` kills them, so every batch pays for fresh
worker processes: Ray's worker start, the pipelines' imports and MiniLM loaded again (measured:
6.5-6.8 s of actor CPU for an executor whose units import the qgen, judge and summaries modules,
the same for the first, second and third executor on one Ray). A driver that runs several
batches on one Ray (a notebook, the test session) can keep the workers instead:

    with keep_workers():
        run_judge(store, options)          # starts two workers
        build_trees(store, films, ex)      # the same two: modules imported, models loaded

Inside the block an executor takes idle kept actors before it starts new ones, and its `close()`
hands them back instead of killing them; leaving the block kills them. Outside a block nothing
changes. Two rules keep a reused worker as good as a new one:
- an actor Ray had to restart (its process died) is killed on its way back, not kept, so every
  executor's actors start with all their restarts (`max_restarts`) left;
- an executor closed with units still in flight kills its actors (the old behaviour), so no
  abandoned unit runs on in a worker the next executor is handed.
A kept idle actor still holds its CPU: another driver on the same Ray (a CLI subprocess) would
wait for it, so `release()` the kept workers before starting one.

This module only handles actor handles (it calls the actors' `reconstructed` method), so the
executor imports it and not the other way round.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Seconds to wait for an idle actor to say whether it was restarted; one that does not answer
# is not kept.
HEALTH_TIMEOUT_S = 30.0


class _Kept:
    """The idle actors of the open `keep_workers` block, and the Ray job they belong to."""

    def __init__(self) -> None:
        self.job: str | None = None
        self.idle: list[Any] = []


_kept: _Kept | None = None


def _job(ray) -> str:
    return ray.get_runtime_context().get_job_id()


def take(ray, count: int) -> list[Any]:
    """Up to `count` idle kept actors of this Ray session (none outside a block)."""
    if _kept is None or not _kept.idle:
        return []
    if _kept.job != _job(ray):  # Ray was restarted since: those handles are dead
        _kept.idle = []
        return []
    taken, _kept.idle = _kept.idle[:count], _kept.idle[count:]
    return taken


def hand_back(ray, actors: list[Any]) -> bool:
    """Keep `actors` for the next executor; False outside a block (the caller kills them)."""
    if _kept is None:
        return False
    fresh = _never_restarted(ray, actors)
    for actor in actors:
        if actor not in fresh:
            ray.kill(actor)
    if _kept.job != _job(ray):
        _kept.idle = []
    _kept.job = _job(ray)
    _kept.idle += fresh
    return True


def _never_restarted(ray, actors: list[Any]) -> list[Any]:
    refs = [actor.reconstructed.remote() for actor in actors]
    fresh = []
    for actor, ref in zip(actors, refs):
        try:
            if not ray.get(ref, timeout=HEALTH_TIMEOUT_S):
                fresh.append(actor)
        except ray.exceptions.RayError:  # dead, restarting or not answering: not kept
            pass
    return fresh


def release() -> int:
    """Kill the idle kept actors (their CPUs go back to Ray); how many there were."""
    if _kept is None or not _kept.idle:
        return 0
    import ray

    idle, _kept.idle = _kept.idle, []
    if ray.is_initialized() and _kept.job == _job(ray):
        for actor in idle:
            ray.kill(actor)
    return len(idle)


@contextmanager
def keep_workers() -> Iterator[None]:
    """Inside, the Ray executors of this process reuse their workers (see the module's doc).
    A nested block is part of the outer one."""
    global _kept
    if _kept is not None:
        yield
        return
    _kept = _Kept()
    try:
        yield
    finally:
        release()
        _kept = None
