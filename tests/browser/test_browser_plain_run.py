"""Plain `streamlit run app.py` serves every page, and a shared deep link that is the first
request a fresh server sees opens its page with the app's navigation: the page scripts live in
`ui/`, so Streamlit's legacy `pages/` mode (which answered such a link with "Page not found" and
listed helper modules as pages) never applies."""

from __future__ import annotations

import pytest

from data_access.importers import import_lfvqa_dir
from data_access.store import Store
from tests.support.app_server import CHROMIUM, running_app
from tests.support.browser_session import ARTIFACTS, wait_for_heading
from tests.support.lfvqa_dataset import tiny_tables, write_dataset

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
)
# The app's pages (app.py's st.navigation), as the sidebar names them, and a deep link to each.
PAGES = {
    "": "Overview",
    "film": "Film",
    "beliefs": "Belief timelines",
    "questions": "Questions",
    "verdicts": "Verdicts",
    "distributions": "Distributions",
    "plottree": "PlotTree",
    "qlab": "Question Lab",
    "runs": "Runs",
}
HEADINGS = {"": "StoryScope"}


def _store(folder) -> str:
    path = folder / "store.duckdb"
    import_lfvqa_dir(Store(path), write_dataset(folder / "seed", tiny_tables()))
    return path


def _sidebar_pages(tab) -> list[str]:
    links = tab.locator('[data-testid="stSidebarNav"] a')
    # each link is its icon's ligature, then the title
    return [links.nth(i).inner_text().strip().splitlines()[-1] for i in range(links.count())]


@pytest.mark.parametrize("first", ["verdicts", "qlab"])
def test_plain_streamlit_run_serves_every_page_from_a_first_deep_link(page, tmp_path, first):  # noqa: F811
    with running_app(_store(tmp_path), launcher="streamlit") as url:
        page.goto(f"{url}/{first}")  # the fresh server's first request
        wait_for_heading(page, HEADINGS.get(first, PAGES[first]))
        body = page.locator('[data-testid="stMain"]').inner_text()
        assert "Page not found" not in page.content()
        assert not page.locator('[data-testid="stException"]').count(), body[:600]
        assert _sidebar_pages(page) == list(PAGES.values())
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"plain-run-first-{first}.png"))
        for path, title in PAGES.items():
            page.goto(f"{url}/{path}")
            wait_for_heading(page, HEADINGS.get(path, title))
            assert not page.locator('[data-testid="stException"]').count(), path
