"""The suite's file order (tests/support/file_order.py): heaviest recorded files first."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from tests.support import file_order


def _items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=nodeid) for nodeid in nodeids]


def test_heaviest_files_first_and_each_file_keeps_its_order(tmp_path, monkeypatch):
    durations = tmp_path / "durations.json"
    durations.write_text(json.dumps({"tests/a.py": 1.0, "tests/b.py": 90.0, "tests/c.py": 5.0}))
    monkeypatch.setattr(file_order, "DURATIONS", durations)
    items = _items(
        "tests/a.py::x", "tests/a.py::y", "tests/b.py::z", "tests/c.py::w", "tests/n.py::v"
    )
    file_order.pytest_collection_modifyitems(None, items)
    # n.py is not recorded: it counts as the average file (32 s), between b and c
    assert [item.nodeid for item in items] == [
        "tests/b.py::z",
        "tests/n.py::v",
        "tests/c.py::w",
        "tests/a.py::x",
        "tests/a.py::y",
    ]


def test_without_a_record_the_collection_order_stays(tmp_path, monkeypatch):
    monkeypatch.setattr(file_order, "DURATIONS", tmp_path / "absent.json")
    items = _items("tests/b.py::1", "tests/a.py::2")
    file_order.pytest_collection_modifyitems(None, items)
    assert [item.nodeid for item in items] == ["tests/b.py::1", "tests/a.py::2"]


def test_the_record_lists_existing_test_files_only():
    """A renamed or deleted file left in the record would only mislead the next reader."""
    recorded = json.loads(file_order.DURATIONS.read_text())
    root = file_order.DURATIONS.parent.parent
    assert recorded and all((root / name).is_file() for name in recorded), [
        name for name in recorded if not (root / name).is_file()
    ]


def test_the_makefile_keeps_the_order():
    """xdist's own reorder (most tests first) would undo the recorded order."""
    makefile = (Path(file_order.__file__).resolve().parents[2] / "Makefile").read_text()
    assert "--no-loadscope-reorder" in makefile and "--dist loadfile" in makefile
