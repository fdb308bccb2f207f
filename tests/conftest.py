"""Shared fixtures: every test gets its own store file, so tests never share state."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from data_access.store import Store
from tests.support.paths import SHARED_DATA
from tests.support.store_files import store_copy

pytest_plugins = [
    "tests.support.fake_llm",
    "tests.support.file_order",
    "tests.support.llama_server",
    "tests.support.ray_session",
    "tests.support.tiers",
]

# Hypothesis's timing checks measure the machine, not the property: on two cores shared with
# browsers, Ray and a llama.cpp server, drawing one list can take seconds (a CI run failed
# `too_slow` on 4 inputs in 1.55 s). Every example is still generated and checked.
settings.register_profile(
    "shared-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("shared-machine")


def pytest_configure(config):
    _scan_streamlit_components_once()


def _scan_streamlit_components_once() -> None:
    """Every new Streamlit `AppTest` scans the metadata of every installed distribution for v2
    components (~0.3 s of CPU each time, ~150 AppTests here); the installed packages do not
    change during a test run, so each test process scans once."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        return
    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests
    )


@pytest.fixture
def store_path(tmp_path, monkeypatch) -> Path:
    """A fresh store path, also exported as STORYSCOPE_STORE for code that reads the env."""
    path = tmp_path / "store.duckdb"
    monkeypatch.setenv("STORYSCOPE_STORE", str(path))
    return path


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory) -> Path:
    """A store file migrated once per test process, for `store` to copy.

    Running every migration (and the first rollup refresh) costs ~0.15 s of CPU; copying the
    migrated file costs ~0.05 s, and 571 of the 1,266 tests take a fresh store.
    """
    path = tmp_path_factory.mktemp("template") / "store.duckdb"
    with Store(path, lock_timeout=10).session():
        pass
    return path


@pytest.fixture
def store(store_path, migrated_template) -> Store:
    """A fresh, migrated store: a copy of the migrated template."""
    return store_copy(migrated_template, store_path)


@pytest.fixture(scope="session")
def seeded_template(migrated_template, tmp_path_factory):
    """`seeded_template(name, seed)`: the path of a store file holding the migrated template
    after `seed(store, folder)`, built once per test process under `name`.

    For tests that each start from the same seeded content: copying the seeded file (~1 ms)
    instead of seeding every test's store (an import is ~0.2 s of CPU). A test still gets its own
    copy (`store_copy`), so what it writes stays its own. A `name` stands for one content:
    every caller passing the same name must seed the same rows (the first caller's seed runs).
    """
    built: dict[str, Path] = {}

    def template(name: str, seed: Callable[[Store, Path], object]) -> Path:
        if name not in built:
            folder = tmp_path_factory.mktemp(name)
            handle = store_copy(migrated_template, folder / "store.duckdb")
            seed(handle, folder)
            built[name] = handle.path
        return built[name]

    return template


@pytest.fixture
def shared_data() -> Path:
    """../shared/data; tests that need it skip with a clear reason only where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent (a user's machine)")
    return SHARED_DATA


@pytest.fixture
def fixture_runs(store) -> dict[str, str]:
    """The explorer's fixture (tests/support/app_fixtures.py) built in the test's store: its run
    ids by role."""
    from tests.support.app_fixtures import build_app_fixture

    return build_app_fixture(store)


@pytest.fixture
def fixture_store(store, fixture_runs) -> Store:
    """The test's store, holding the explorer's fixture (one builder for every page test)."""
    return store
