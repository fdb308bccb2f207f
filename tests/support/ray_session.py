"""Pytest fixtures on one embedded Ray with 2 CPUs for the whole test session.

Starting Ray costs seconds (tens under load), so every Ray test file shares one: the first
test that asks starts it, the session's end shuts it down. Its workers are kept between
executors (`pipelines.scale.kept_workers`): each executor's fresh actors cost ~6.5 s of CPU for
Ray's worker start and the pipelines' imports, and the suite makes a few dozen of them. Tests
skip when Ray is absent.
"""

from __future__ import annotations

import time

import pytest


@pytest.fixture(scope="session")
def ray_session():
    """One embedded Ray with 2 CPUs; yields its GCS address (for driver subprocesses)."""
    ray = pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")
    from pipelines.scale.executor import start_ray
    from pipelines.scale.kept_workers import keep_workers

    start_ray(None, 2)
    with keep_workers():
        yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture
def ray_address(ray_session):
    """The session's Ray address for a driver subprocess, the kept idle workers released first:
    each holds one of the 2 CPUs the subprocess's own workers need."""
    from pipelines.scale.kept_workers import release

    release()
    return ray_session


@pytest.fixture
def ray_executor(ray_session):
    """A RayExecutor on the session's Ray (two workers), closed after the test."""
    from pipelines.scale import RayExecutor

    executor = RayExecutor()
    yield executor
    executor.close()


def assert_actor_ends(ray, actor, method: str, timeout_s: float = 60.0) -> None:
    """Poll `actor.<method>()` until the actor refuses calls: `ray.kill` is asynchronous, so a
    call sent just after it may still be served (a loaded machine can take seconds)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            ray.get(getattr(actor, method).remote(), timeout=30)
        except ray.exceptions.RayActorError:
            return
        time.sleep(0.2)
    pytest.fail(f"the actor still answered calls {timeout_s:.0f} s after it was to end")
