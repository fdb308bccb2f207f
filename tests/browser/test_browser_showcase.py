"""The first run, in headless Chromium: the samples-only demo store — what `make run`
builds on a machine without ../shared/data — served by the real `streamlit run app.py`, and
every page must open on a chart or a table with data, never on a box saying there is nothing.

The demo store is built once per module with `build_demo(store, None)` (a few minutes on a busy
machine). Skipped (with the reason) only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from data_access.store import Store
from tests.support.app_server import CHROMIUM, running_app
from tests.support.browser_session import ARTIFACTS

# url path (with the view a first-time user opens) -> page title
SHOWCASE_PAGES = {
    "": "StoryScope",
    "film": "Film",
    "beliefs": "Belief timelines",
    "questions": "Questions",
    "verdicts": "Verdicts",
    "distributions": "Distributions",
    "distributions?view=Multiple+choice+%28StoryVideoQA%29": "Distributions",
    "plottree": "PlotTree",
    "qlab": "Question Lab",
    "runs": "Runs",
}
DATA_SELECTOR = ".js-plotly-plot, [data-testid='stDataFrame'], [data-testid='stTable']"
EMPTY_WORDS = ("no ", "nothing", "empty", "not yet", "build one")
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]


# Generous waits: a page with a 678-node tree takes ~20 s of script time on a loaded 2-core box.
SCRIPT_TIMEOUT_MS = 240_000


def _settle(tab) -> None:
    """Wait until the script run is over (no 'Running…' status widget)."""
    tab.wait_for_timeout(300)
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=SCRIPT_TIMEOUT_MS,
    )


def _open(tab, url: str, title: str) -> None:
    tab.goto(url, timeout=SCRIPT_TIMEOUT_MS)
    tab.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=SCRIPT_TIMEOUT_MS)
    _settle(tab)


@pytest.fixture(scope="module")
def showcase_url(tmp_path_factory):
    """A samples-only demo store and `streamlit run app.py` over it; yields the base URL.

    STORYSCOPE_SHOWCASE_STORE may name an already built samples-only demo store to walk instead
    (it is copied first, never written), to re-run the walk without rebuilding the demo.
    """
    from pipelines.demo import build_demo

    store_path = tmp_path_factory.mktemp("showcase") / "demo.duckdb"
    prebuilt = os.environ.get("STORYSCOPE_SHOWCASE_STORE")
    if prebuilt and Path(prebuilt).is_file():
        shutil.copy(prebuilt, store_path)
    else:
        build_demo(Store(store_path, lock_timeout=30), None, echo=lambda message: None)
    with running_app(store_path) as url:
        yield url


def _empty_boxes(tab) -> list[str]:
    """Texts of info/warning boxes that say the page has nothing to show."""
    texts = tab.locator("[data-testid='stAlert']").all_inner_texts()
    return [t for t in texts if any(word in t.lower() for word in EMPTY_WORDS)]


def test_every_page_of_the_first_run_shows_data(page, showcase_url):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    problems = []
    for path, title in SHOWCASE_PAGES.items():
        _open(page, f"{showcase_url}/{path}", title)
        page.wait_for_selector(DATA_SELECTOR, timeout=SCRIPT_TIMEOUT_MS, state="attached")
        _settle(page)
        name = path.split("?")[0] or "overview"
        page.screenshot(path=str(ARTIFACTS / f"showcase-{name}.png"), full_page=True)
        if page.locator("[data-testid='stException']").count():
            problems.append(f"/{path}: exception")
        if not page.locator(DATA_SELECTOR).count():
            problems.append(f"/{path}: no chart or table")
        problems += [f"/{path}: {text}" for text in _empty_boxes(page)]
    assert not problems, problems


def test_pages_open_on_the_showcase_film(page, showcase_url):  # noqa: F811
    for path in ("film", "beliefs"):
        _open(page, f"{showcase_url}/{path}", SHOWCASE_PAGES[path])
        # the picker opens on the showcase film (bound to the URL, which leaves a default out)
        picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Film").first
        shown = picker.evaluate(
            "el => el.innerText + ' ' + [...el.querySelectorAll('input')].map(i => i.value).join()"
        )
        assert "The Keeper's Ledger" in shown
    _open(page, f"{showcase_url}/verdicts", "Verdicts")
    assert "keepers-gold" in page.url or "Keeper" in page.content()
    _open(page, f"{showcase_url}/beliefs", "Belief timelines")
    assert "rules backend vs gold: precision" in page.content()
