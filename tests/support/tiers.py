"""The tiers of the suite, read off what a test uses, so a new test lands in the right tier
without anyone remembering a marker.

`make test` runs every tier. `make test-fast` deselects the tests marked here (and the ones
marked by hand): `browser` (headless Chromium against a Streamlit server), `realserver` (the
llama.cpp server), `realdata` (../shared/data), `ray` (an embedded Ray), `cluster` and `slow`.
What is left is unit and AppTest work over stores built in code, with the scripted LLM server.
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
# the tiers `--fast` leaves out (the same as `-m "not (browser or realserver or ...)"`)
FAST_EXCLUDES = ("browser", "realserver", "realdata", "ray", "cluster", "slow")


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier (make test-fast): leave out " + ", ".join(FAST_EXCLUDES),
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
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
