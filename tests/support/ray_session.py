"""Pytest fixture `ray_session`: one embedded Ray with 2 CPUs for the whole test session.

Starting Ray costs seconds (tens under load), so every Ray test file shares one: the first
test that asks starts it, the session's end shuts it down. Tests skip when Ray is absent.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_session():
    """One embedded Ray with 2 CPUs; yields its GCS address (for driver subprocesses)."""
    ray = pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")
    from pipelines.scale.executor import start_ray

    start_ray(None, 2)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture
def ray_executor(ray_session):
    """A RayExecutor on the session's Ray (two workers), its actors killed after the test."""
    from pipelines.scale import RayExecutor

    executor = RayExecutor()
    yield executor
    executor.close()
