"""Headless Chromium over the explorer: the browser and page fixtures, and waiting for a page to
settle."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.app_server import CONTEXT_OPTIONS, launch_chromium
from tests.support.paths import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"


PAGES = {  # url path -> the page title it must show
    "": "StoryScope",
    "film": "Film",
    "beliefs": "Belief timelines",
    "questions": "Questions",
    "verdicts": "Verdicts",
    "distributions": "Distributions",
    "plottree": "PlotTree",
    "qlab": "Question Lab",
    "runs": "Runs",
}


def judge_everything_asserted(body: dict, number: int) -> str:
    """Scripted judge: label every numbered rubric claim of the request 'asserted'."""
    user = body["messages"][-1]["content"]
    # judge-claims-v2 (the default) numbers claims without the v1 role tag
    claims = sorted(
        {int(n) for n in re.findall(r"^(\d+)\. (?:\[(?:core|context)\] )?\S", user, re.MULTILINE)}
    )
    return json.dumps(
        {"verdicts": [{"claim": c, "label": "asserted", "rationale": "scripted"} for c in claims]}
    )


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        handle = launch_chromium(playwright)
        yield handle
        handle.close()


@pytest.fixture(scope="module")
def page(browser):
    """One tab for the module: every test opens its page by URL, a new Streamlit session. A new
    tab would be a new renderer process that compiles Streamlit's and Plotly's scripts again
    (~2.5 core-s of Chromium per tab here, the same tab's next page ~1.5)."""
    context = browser.new_context(
        accept_downloads=True, viewport={"width": 1400, "height": 2200}, **CONTEXT_OPTIONS
    )
    tab = context.new_page()
    yield tab
    context.close()


def settle(page) -> None:
    """Wait until the script run is over (no 'Running…' status widget)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60000
    )


def _settled(tab) -> None:
    """The run is over: no status widget, no loading skeleton."""
    tab.wait_for_timeout(300)
    tab.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " && !document.querySelector('[data-testid=\"stSkeleton\"]')",
        timeout=90000,
    )


def wait_for_heading(tab, title: str) -> None:
    tab.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=90000)
    _settled(tab)
