"""A fresh samples-only store, as `storyscope demo` alone builds it (no --data-dir), walked in
headless Chromium the way a new user walks it: through the sidebar, and by shared links.

- Overview, then Film (which opens on the showcase film), then **Belief timelines** in the
  sidebar opens on a film with belief records: the two pickers are two widgets to Streamlit,
  and Belief timelines opened on the first film of the list ("Anatomy of a Fall"), which has
  none: a page opens on a film that has its data.
- A link's unknown value (`?film=does-not-exist`, `?scene=999`, `?who=NOBODY`) is named in a
  notice, never replaced silently; the belief page names the backend behind its records.
- No page shows a traceback, and Streamlit's "Deploy" button is not offered.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.app_server import CHROMIUM, running_app
from tests.support.browser_session import ARTIFACTS, PAGES, wait_for_heading
from tests.support.paths import REPO_ROOT

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]
SHOWCASE_TITLE = "The Keeper's Ledger"
# what a selectbox shows: its text and the value of its combobox input
SHOWN_JS = "el => el.innerText + ' ' + [...el.querySelectorAll('input')].map(i => i.value).join()"


@pytest.fixture(scope="module")
def demo_url(tmp_path_factory):
    """`storyscope demo` with no data folder (samples only), then the app over its store."""
    store_path = tmp_path_factory.mktemp("demo-samples-only") / "storyscope.duckdb"
    env = {k: v for k, v in os.environ.items() if k != "STORYSCOPE_DATA_DIR"}
    env["STORYSCOPE_STORE"] = str(store_path)
    built = subprocess.run(
        [sys.executable, "-m", "pipelines", "demo", "--store", str(store_path)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    with running_app(store_path, drop_env=("STORYSCOPE_DATA_DIR",)) as url:
        yield url


def _sidebar(tab, title: str) -> None:
    tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).first.click()
    wait_for_heading(tab, title)


def _film_shown(tab) -> str:
    """The film the page shows, as its film picker displays it. The picker is bound to the URL
    (`?film=`), but Streamlit leaves a default value out of it, so the URL cannot tell."""
    picker = tab.locator('[data-testid="stSelectbox"]').filter(has_text="Film").first
    picker.wait_for(timeout=30000)
    return picker.evaluate(SHOWN_JS)


def test_overview_film_then_belief_timelines_opens_on_a_film_with_beliefs(page, demo_url):  # noqa: F811
    page.goto(demo_url)
    wait_for_heading(page, "StoryScope")
    _sidebar(page, "Film")
    assert SHOWCASE_TITLE in _film_shown(page)
    _sidebar(page, "Belief timelines")
    page.locator(".js-plotly-plot").first.wait_for(timeout=60000)
    assert SHOWCASE_TITLE in _film_shown(page)  # not the first film of the list
    assert page.get_by_text("No belief records for this film yet").count() == 0
    # the records on screen are named with the backend that wrote them and how good it is
    page.get_by_text("Records by the").first.wait_for(timeout=30000)
    page.get_by_text("Scored on this film's gold").first.wait_for(timeout=30000)
    page.get_by_text("one call per character per scene").first.wait_for(timeout=30000)
    page.screenshot(path=str(ARTIFACTS / "demo-sidebar-beliefs.png"), full_page=True)


@pytest.mark.parametrize(
    ("path", "title", "named"),
    [
        ("film?film=does-not-exist", "Film", "does-not-exist"),
        ("film?film=the-keepers-ledger&scene=999", "Film", "999"),
        ("beliefs?film=the-keepers-ledger&who=NOBODY", "Belief timelines", "NOBODY"),
    ],
)
def test_an_unknown_link_value_is_named_not_replaced_silently(page, demo_url, path, title, named):  # noqa: F811
    page.goto(f"{demo_url}/{path}")
    wait_for_heading(page, title)
    notice = page.get_by_text("The link asks for").first
    notice.wait_for(timeout=30000)
    assert named in notice.inner_text()


def test_every_page_renders_without_a_traceback_or_a_deploy_button(page, demo_url):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    for path, title in PAGES.items():
        page.goto(f"{demo_url}/{path}")
        wait_for_heading(page, title)
        body = page.locator('[data-testid="stMain"]').inner_text()
        assert not page.locator('[data-testid="stException"]').count(), f"{path}: {body[:500]}"
        assert "nan" not in body.split(), f"{path} shows a bare nan"
        assert not page.locator('[data-testid="stAppDeployButton"]').count(), path
        page.screenshot(path=str(ARTIFACTS / f"demo-{path or 'overview'}.png"), full_page=True)
