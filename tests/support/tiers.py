"""The tiers of the suite, read off what a test uses, so a new test lands in the right tier
without anyone remembering a marker.

`make test` runs every tier. `make test-fast` deselects the tests marked here (and the ones
marked by hand): `browser` (headless Chromium against a Streamlit server), `realserver` (the
llama.cpp server), `realdata` (../shared/data), `ray` (an embedded Ray), `cluster`, `slow`, and
`heavy` (a file over HEAVY_FILE_S in the last recorded run). What is left is unit and AppTest
work over stores built in code, with the scripted LLM server.
"""

from __future__ import annotations

import pytest

# fixture -> the tier a test that asks for it belongs to
FIXTURE_TIERS = {
    "page": "browser",  # a Playwright page (tests/browser/conftest.py)
    "browser": "browser",
    "llama_server": "realserver",
    "shared_data": "realdata",
    "ray_session": "ray",
    "ray_executor": "ray",
    "ray_address": "ray",
}
# A test file that took longer than this in the last recorded full run (tests/durations.json,
# `make test-durations`) is `heavy`: on a shared 2-core machine those files (subprocess CLIs and
# jobs, stores of many rows, store upgrades) are most of the suite's time. Recorded at load ~2
# (every file timed), 20 s puts the fast tier at about a quarter of `make test`'s time while it
# keeps four fifths of the tests (271 s against 1,059 s; at 30 s: 330 s).
HEAVY_FILE_S = 20.0
# the tiers `--fast` leaves out (the same as `-m "not (browser or realserver or ...)"`)
FAST_EXCLUDES = ("browser", "realserver", "realdata", "ray", "cluster", "slow", "heavy")


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier (make test-fast): leave out " + ", ".join(FAST_EXCLUDES),
    )


def _heavy_files() -> set[str]:
    from tests.support.file_order import _weights

    return {path for path, seconds in _weights().items() if seconds > HEAVY_FILE_S}


def pytest_collection_modifyitems(config, items):
    heavy = _heavy_files()
    for item in items:
        if item.nodeid.split("::", 1)[0] in heavy and item.get_closest_marker("heavy") is None:
            item.add_marker(pytest.mark.heavy)
        # a parametrize argument of the same name (`page` of a pages test) is no fixture
        params = getattr(getattr(item, "callspec", None), "params", {})
        used = set(getattr(item, "fixturenames", ())) - set(params)
        for fixture, tier in FIXTURE_TIERS.items():
            if fixture in used and item.get_closest_marker(tier) is None:
                item.add_marker(getattr(pytest.mark, tier))
    if config is None or not config.getoption("fast"):
        return
    kept, left_out = [], []
    for item in items:
        slow = any(item.get_closest_marker(tier) for tier in FAST_EXCLUDES)
        (left_out if slow else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
