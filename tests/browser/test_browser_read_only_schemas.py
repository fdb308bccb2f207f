"""A read-only explorer (STORYSCOPE_READ_ONLY=1) over a store of an older and of a newer schema,
every page opened in headless Chromium: no traceback anywhere, one notice where the store
cannot be read as it is.

Read-only, the app reads a store as it is and never upgrades it. An older store's pages asked for
tables and columns it does not have and showed `BinderException` tracebacks (Questions, Verdicts'
grid, Question Lab): now every page shows one notice saying what to do. A newer store holds every
table this code reads, so its pages render. Every page carries the read-only banner once.
"""

from __future__ import annotations

import duckdb
import pytest

from data_access.importers import import_lfvqa_dir
from data_access.store import Store
from tests.support.app_server import CHROMIUM, running_app
from tests.support.browser_session import ARTIFACTS, wait_for_heading
from tests.support.lfvqa_dataset import tiny_tables, write_dataset
from tests.support.old_store import build_old_store

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]
FUTURE = 9_999
PAGES = {
    "": "StoryScope",
    "film": "Film",
    "beliefs": "Belief timelines",
    "questions": "Questions",
    "verdicts": "Verdicts",
    "verdicts?view=Claims+%C3%97+settings": "Verdicts",
    "distributions": "Distributions",
    "plottree": "PlotTree",
    "qlab": "Question Lab",
    "runs": "Runs",
}
READ_ONLY = {"STORYSCOPE_READ_ONLY": "1"}


def _older(folder) -> str:
    path = folder / "older.duckdb"
    build_old_store(path, 620)  # rollups exist; many later columns do not
    return path


def _newer(folder) -> str:
    path = folder / "newer.duckdb"
    import_lfvqa_dir(Store(path), write_dataset(folder / "seed", tiny_tables()))
    with duckdb.connect(str(path)) as connection:
        connection.execute(
            "INSERT INTO _migrations (number, name) VALUES (?, 'from a later StoryScope')",
            [FUTURE],
        )
    return path


def _walk(tab, url: str, name: str) -> dict[str, str]:
    """Open every page; return each page's main text (after asserting no traceback)."""
    ARTIFACTS.mkdir(exist_ok=True)
    seen = {}
    for path, title in PAGES.items():
        tab.goto(f"{url}/{path}")
        wait_for_heading(tab, title)
        body = tab.locator('[data-testid="stMain"]').inner_text()
        assert not tab.locator('[data-testid="stException"]').count(), f"{path}: {body[:600]}"
        for word in ("Traceback", "BinderException", "CatalogException"):
            assert word not in body, f"{name} {path}: {body[:600]}"
        assert body.count("Read-only explorer.") == 1, f"{name} {path}: one banner"
        seen[path] = body
        tab.screenshot(path=str(ARTIFACTS / f"read-only-{name}-{path[:20] or 'overview'}.png"))
    return seen


def test_an_older_store_gets_one_notice_on_every_page(page, tmp_path):  # noqa: F811
    with running_app(_older(tmp_path), env=READ_ONLY) as url:
        bodies = _walk(page, url, "older")
    for path, body in bodies.items():
        assert body.count("was written by an older StoryScope") == 1, path
        assert "What to do:" in body and str(tmp_path) not in body, path


def test_a_newer_store_renders_every_page(page, tmp_path):  # noqa: F811
    with running_app(_newer(tmp_path), env=READ_ONLY) as url:
        bodies = _walk(page, url, "newer")
    assert all("older StoryScope" not in body for body in bodies.values())
    assert all(str(tmp_path) not in body for body in bodies.values())
