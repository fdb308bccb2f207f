"""Hostile text in headless Chromium: a question, gold answer, rubric claim, model answer and film
title carrying markdown images and links, HTML, a 5,000-character line, RTL overrides and
zero-width characters. The browser must fetch nothing from the URLs they name (a listener on a
loopback port counts requests) and the page must not grow sideways."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from data_access.store import Store
from tests.support.app_fixtures import build_app_fixture
from tests.support.app_server import CHROMIUM, CONTEXT_OPTIONS, launch_chromium, running_app
from tests.support.hostile import insert_hostile_question
from tests.support.paths import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]


class _Listener:
    """An HTTP server on a loopback port that records every request path."""

    def __init__(self) -> None:
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                seen.append(self.path)
                self.send_response(404)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory):
    listener = _Listener()
    store_path = tmp_path_factory.mktemp("hostile") / "store.duckdb"
    store = Store(store_path, lock_timeout=30)
    build_app_fixture(store)
    insert_hostile_question(store, listener.url)
    _hostile_character(store, listener.url)
    try:
        with running_app(store_path) as url:
            yield url, listener
    finally:
        listener.close()


def _hostile_character(store, url: str) -> None:
    """Rename Ann to a name holding a link, everywhere a chart reads her name (dataset
    text is never markup:
    Plotly renders <a href> in tick labels, hover text and legend names)."""
    name = f'<a href="{url}/plotly-link">Ann</a>'
    with store.transaction() as cursor:
        for table, column in (("presence", "character"), ("beliefs", "holder")):
            cursor.execute(f"UPDATE {table} SET {column} = ? WHERE {column} = 'Ann'", [name])


# anchors Plotly drew from text (its own modebar buttons hold no href to our listener)
_PLOTLY_LINKS = """(url) => Array.from(document.querySelectorAll('.js-plotly-plot a')).filter(
    a => (a.getAttribute('href') || a.getAttribute('xlink:href') || '').startsWith(url)).length"""


def test_hostile_text_fetches_nothing_and_keeps_the_layout(hostile_app):
    from playwright.sync_api import sync_playwright

    url, listener = hostile_app
    ARTIFACTS.mkdir(exist_ok=True)
    views = {
        "questions": ("questions?q=q1", "Questions"),
        "verdicts": ("verdicts?q=q1&view=Claims+%C3%97+settings", "Verdicts"),
        "overview": ("", "StoryScope"),
        "film": ("film?film=lighthouse", "Film"),
        "beliefs": ("beliefs?film=lighthouse", "Belief timelines"),
    }
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 900}, **CONTEXT_OPTIONS)
        widths = {}
        for name, (path, title) in views.items():
            page.goto(f"{url}/{path}")
            page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=90000)
            page.wait_for_function(
                "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                timeout=90000,
            )
            page.wait_for_timeout(1500)  # time for any image request to go out
            widths[name] = page.evaluate(
                "() => [document.documentElement.scrollWidth, window.innerWidth]"
            )
            page.screenshot(path=str(ARTIFACTS / f"hostile-{name}.png"), full_page=True)
            assert page.evaluate(_PLOTLY_LINKS, listener.url) == 0, f"a live link in {name}"
            if name in ("film", "beliefs"):  # the hostile name is in their charts, as text
                charts = page.evaluate(
                    "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                    ".map(el => el.textContent).join(' ')"
                )
                assert '<a href="' in charts, name
            if name == "questions":
                body = page.inner_text("body")
                assert "md-image.png" in body and "<img" in body  # shown as text
                assert page.locator("main img[src*='127.0.0.1']").count() == 0
                links = page.locator(f"main a[href^='{listener.url}']")
                assert links.count() == 0
        browser.close()
    assert listener.seen == []
    for name, (scroll_width, inner_width) in widths.items():
        assert scroll_width <= inner_width, f"{name} overflows sideways: {scroll_width}px"
