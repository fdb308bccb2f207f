"""The browser tier: every test here drives headless Debian Chromium (Playwright) against a real
Streamlit server, so each is marked `browser` (left out of `make test-fast`). The shared
`browser` and `page` fixtures (one Chromium per module) come from tests/support/browser_session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser_session import browser, page  # noqa: F401 (fixtures of this folder)

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents and not item.get_closest_marker(
            "browser"
        ):
            item.add_marker(pytest.mark.browser)
