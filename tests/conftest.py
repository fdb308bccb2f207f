"""Shared fixtures: every test gets its own store file, so tests never share state."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from data_access.store import Store

pytest_plugins = [
    "tests.support.fake_llm",
    "tests.support.llama_server",
    "tests.support.ray_session",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("STORYSCOPE_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture
def store_path(tmp_path, monkeypatch) -> Path:
    """A fresh store path, also exported as STORYSCOPE_STORE for code that reads the env."""
    path = tmp_path / "store.duckdb"
    monkeypatch.setenv("STORYSCOPE_STORE", str(path))
    return path


@pytest.fixture
def store(store_path) -> Store:
    """A fresh, migrated store."""
    handle = Store(store_path, lock_timeout=10)
    with handle.session():
        pass
    return handle


@pytest.fixture
def shared_data() -> Path:
    """../shared/data; tests that need it skip with a clear reason only where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent (a user's machine)")
    return SHARED_DATA
