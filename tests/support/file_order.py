"""Heaviest test files first, so `pytest -n N --dist loadfile` ends with short files.

Under `--dist loadfile` each file runs whole on one worker, and the run ends when the worker
with the last long file ends. pytest-xdist's default order (files with the most tests first)
put one-test files of a minute or two — the load test, the browser walks — at the end, with the
other workers idle. Sorting files by their recorded duration, longest first, is the classic
longest-processing-time-first schedule (within 4/3 of the best makespan); the Makefile passes
`--no-loadscope-reorder` so xdist keeps this order.

`tests/durations.json` holds each file's summed setup + call + teardown seconds; refresh it
with `make test-durations` after adding or slowing down files (a file it does not list
counts as the average file). The order never changes what runs, only when.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

DURATIONS = Path(__file__).resolve().parent.parent / "durations.json"
_spent: dict[str, float] = defaultdict(float)


def pytest_addoption(parser):
    parser.addoption(
        "--record-file-durations",
        action="store_true",
        help=f"write each test file's summed duration to {DURATIONS.name} at the end of the run",
    )


def _weights() -> dict[str, float]:
    try:
        return json.loads(DURATIONS.read_text())
    except (FileNotFoundError, ValueError):
        return {}


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items):
    weights = _weights()
    average = sum(weights.values()) / len(weights) if weights else 0.0
    # a stable sort: the tests of one file keep their order
    items.sort(key=lambda item: -weights.get(_file_of(item.nodeid), average))


def pytest_runtest_logreport(report):
    _spent[_file_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session):
    config = session.config
    if not config.getoption("record_file_durations") or hasattr(config, "workerinput"):
        return  # only the controller sees every worker's reports
    if session.testsfailed or session.shouldfail:
        return  # a failed run's durations (timeouts) would mislead the order
    ordered = dict(sorted((f, round(s, 1)) for f, s in _spent.items()))
    DURATIONS.write_text(json.dumps(ordered, indent=1) + "\n")
