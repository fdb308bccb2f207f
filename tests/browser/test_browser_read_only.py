"""Read-only mode in headless Chromium: the
real app over the fixture store with STORYSCOPE_READ_ONLY=1; a visitor opens every page (every
Verdicts view) and clicks every button there, and afterwards every table of the store holds
exactly the rows it held before, and the store file is byte for byte the same.

The visitor even has a reviewer name (STORYSCOPE_REVIEWER) and an LLM endpoint configured, which
in local mode bring up the review and job widgets: none may show.
"""

from __future__ import annotations

import hashlib

import pytest

from data_access.store import Store
from tests.support.app_fixtures import build_app_fixture
from tests.support.app_server import CHROMIUM, CONTEXT_OPTIONS, running_app
from tests.support.browser_session import ARTIFACTS
from tests.support.page_ready import ScriptRuns
from tests.support.store_snapshots import store_dump

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]
VERDICT_VIEWS = ["Claims+%C3%97+settings", "Metrics", "Agreement", "Diff+of+two+runs", "Review",
                 "Compare"]  # fmt: skip
PAGES = [
    "",
    "film?film=lighthouse",
    "beliefs?film=lighthouse",
    "questions?film=lighthouse&q=q1",
    *(f"verdicts?q=q1&view={view}" for view in VERDICT_VIEWS),
    "distributions",
    "plottree?film=lighthouse",
    "qlab",
    "runs",
]
# buttons that write in local mode; none may be offered read-only
WRITE_LABELS = ("Save", "Start", "Dry run", "Import", "Generate")
# Streamlit's widget buttons (st.button, st.form_submit_button, st.download_button), not the
# toolbar of charts and tables
BUTTONS = (
    '[data-testid="stMain"] [data-testid^="stBaseButton"]'
    ':not([data-testid="stBaseButton-elementToolbar"]):visible'
)
MAX_CLICKS_PER_PAGE = 30


def _store_contents(store_path) -> dict[str, list]:
    """Every row of every table, read through a read-only connection (the app holds one too)."""
    return store_dump(Store(store_path, lock_timeout=60, read_only=True))


def _file_hash(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def read_only_app(tmp_path_factory):
    store_path = tmp_path_factory.mktemp("browser-read-only") / "store.duckdb"
    build_app_fixture(Store(store_path, lock_timeout=30))
    env = {
        "STORYSCOPE_READ_ONLY": "1",
        "STORYSCOPE_REVIEWER": "visitor",
        "STORYSCOPE_LLM_BASE_URL": "http://127.0.0.1:9/v1",  # configured, never reachable
        "STORYSCOPE_LLM_MODEL": "never-called",
    }
    with running_app(store_path, env=env) as url:
        yield url, store_path


def _drawn(tab) -> None:
    """Nothing is still a loading skeleton (a finished run's elements may still be drawing)."""
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=60000
    )


def _click_every_button(tab, runs: ScriptRuns) -> list[str]:
    """Click each widget button once (the page reruns after each click); return their labels.

    Each wait is for the server's own "script finished" (tests/support/page_ready.py): the
    status widget shows only once a run has lasted 500 ms, so waiting for it to go away let a
    loaded CI machine count a page's buttons before its script had drawn them.
    """
    clicked: list[str] = []
    for index in range(MAX_CLICKS_PER_PAGE):
        buttons = tab.locator(BUTTONS)
        if index >= buttons.count():
            break
        button = buttons.nth(index)
        clicked.append(button.inner_text().strip())
        seen = runs.finished
        button.click(timeout=30000)
        runs.wait_past(tab, seen)  # a widget button reruns the script (downloads too)
        _drawn(tab)
    return clicked


def test_a_visitor_clicking_everything_changes_no_row(browser, read_only_app):  # noqa: F811
    url, store_path = read_only_app
    ARTIFACTS.mkdir(exist_ok=True)
    before, file_before = _store_contents(store_path), _file_hash(store_path)
    context = browser.new_context(
        viewport={"width": 1400, "height": 2200}, accept_downloads=True, **CONTEXT_OPTIONS
    )
    tab = context.new_page()
    runs = ScriptRuns(tab)
    clicked, notes = {}, {}
    for path in PAGES:
        seen = runs.finished
        tab.goto(f"{url}/{path}")
        tab.locator('[data-testid="stMain"] h1').first.wait_for(timeout=90000)
        runs.wait_past(tab, seen)
        _drawn(tab)
        body = tab.locator('[data-testid="stMain"]').inner_text()
        notes[path] = "this explorer is read-only" in body
        assert not tab.locator('[data-testid="stException"]').count(), f"{path}: {body[:500]}"
        assert not tab.get_by_role("textbox", name="Reviewer").count()
        assert not tab.locator('[data-testid="stFileUploader"]').count()
        clicked[path] = _click_every_button(tab, runs)
        for label in clicked[path]:
            assert not label.startswith(WRITE_LABELS), f"{path} offers {label!r}"
    tab.screenshot(path=str(ARTIFACTS / "read-only-runs.png"), full_page=True)
    context.close()
    labels = [label for page_labels in clicked.values() for label in page_labels]
    # what a visitor still has: a download of each page's slice
    assert len(labels) >= 5 and all(label.startswith("Download") for label in labels), clicked
    assert notes["questions?film=lighthouse&q=q1"] and notes["runs"]
    assert notes["verdicts?q=q1&view=Review"] and notes["verdicts?q=q1&view=Claims+%C3%97+settings"]
    assert _store_contents(store_path) == before
    assert _file_hash(store_path) == file_before
