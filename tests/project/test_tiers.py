"""The suite's tiers (tests/support/tiers.py): a test is marked by the fixtures it asks for and
by its file's recorded time, and `--fast` leaves those tiers out."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tests.support import file_order, tiers


class _Item:
    def __init__(self, nodeid: str, fixtures=(), params=None):
        self.nodeid, self.fixturenames = nodeid, list(fixtures)
        self.callspec = SimpleNamespace(params=params or {})
        self.markers: list[str] = []

    def get_closest_marker(self, name):
        return name if name in self.markers else None

    def add_marker(self, mark):
        self.markers.append(mark.name)


class _Config:
    def __init__(self, fast: bool):
        self.fast, self.deselected = fast, []
        self.hook = SimpleNamespace(pytest_deselected=lambda items: self.deselected.extend(items))

    def getoption(self, name):
        assert name == "fast"
        return self.fast


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    durations = tmp_path / "durations.json"
    durations.write_text(json.dumps({"tests/pipelines/test_big.py": 45.0, "tests/t.py": 2.0}))
    monkeypatch.setattr(file_order, "DURATIONS", durations)


def _suite():
    return [
        _Item("tests/t.py::unit", ["store"]),
        _Item("tests/t.py::model", ["llama_server"]),
        _Item("tests/t.py::data", ["shared_data"]),
        _Item("tests/t.py::ray", ["ray_session"]),
        _Item("tests/browser/t.py::walk", ["page"]),
        _Item("tests/ui/t.py::param", ["page"], params={"page": "film_page"}),
        _Item("tests/pipelines/test_big.py::any", ["store"]),
    ]


def test_fast_keeps_unit_and_apptest_work_only(recorded):
    items, config = _suite(), _Config(fast=True)
    tiers.pytest_collection_modifyitems(config, items)
    assert [item.nodeid for item in items] == ["tests/t.py::unit", "tests/ui/t.py::param"]
    left_out = {item.nodeid: item.markers for item in config.deselected}
    assert left_out == {
        "tests/t.py::model": ["realserver"],
        "tests/t.py::data": ["realdata"],
        "tests/t.py::ray": ["ray"],
        "tests/browser/t.py::walk": ["browser"],
        "tests/pipelines/test_big.py::any": ["heavy"],
    }


def test_the_full_run_keeps_every_test(recorded):
    items, config = _suite(), _Config(fast=False)
    tiers.pytest_collection_modifyitems(config, items)
    assert len(items) == 7 and not config.deselected


def test_the_makefile_runs_the_fast_tier_with_the_suite_settings():
    makefile = (file_order.DURATIONS.parents[1] / "Makefile").read_text()
    assert "test-fast: $(TEST_STAMP)\n\t$(PY) -m pytest $(PYTEST_ARGS) --fast" in makefile
