"""Pytest fixture `ray_session`: one embedded Ray with 2 CPUs, shared by consecutive Ray tests.

Starting Ray costs seconds (~4 s wall, ~6 s CPU here; tens under load), so consecutive Ray tests
share one: the first test that asks starts it. An idle embedded Ray is not free either: its GCS,
raylet and monitors used 2.1 s of CPU in 30 idle seconds (measured alone, ~0.07 of a core), and
a worker runs its Ray files early (longest first, tests/support/file_order.py) and other files
for the rest of the suite. So Ray is shut down after a test whose next test in this worker's
queue does not ask for it (`pytest_runtest_teardown`); a later Ray test starts it again. Tests
skip when Ray is absent.
"""

from __future__ import annotations

import pytest

FIXTURE = "ray_session"


@pytest.fixture
def ray_session():
    """The embedded Ray with 2 CPUs (started if not up); its GCS address (for driver
    subprocesses)."""
    ray = pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")
    from pipelines.scale.executor import start_ray

    if not ray.is_initialized():
        start_ray(None, 2)
    return ray.get_runtime_context().gcs_address


@pytest.fixture
def ray_executor(ray_session):
    """A RayExecutor on the session's Ray (two workers), its actors killed after the test."""
    from pipelines.scale import RayExecutor

    executor = RayExecutor()
    yield executor
    executor.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a Ray test's fixtures are torn down: stop Ray unless the next test uses it too."""
    yield
    if FIXTURE not in item.fixturenames:
        return
    if nextitem is not None and FIXTURE in nextitem.fixturenames:
        return
    import ray

    if ray.is_initialized():
        ray.shutdown()
