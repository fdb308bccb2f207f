"""In headless Chromium over `streamlit run app.py`: the Verdicts grid of a question with an
unjudged answer and a partly rejudged one says "not judged" in words and never shows "nan"
(the grid once showed "■1 nan" chips and a caption of 0/2 core for judged answers)."""

from __future__ import annotations

import pytest

from data_access.store import Store
from data_access.tables.runs import RunSpec, finish_run, insert_run
from tests.support.app_fixture_data import JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.app_server import CHROMIUM, CONTEXT_OPTIONS, launch_chromium, running_app
from tests.support.paths import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]


def _store(path) -> None:
    """The fixture, a setting whose answer no judge saw, and a newer LLM judge run over one
    answer only (as after judging newly imported answers)."""
    store = Store(path, lock_timeout=30)
    build_app_fixture(store)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="judge", backend="openai", model="gpt-test"))
        cursor.execute(
            "UPDATE runs SET started_at = current_timestamp + INTERVAL 1 DAY WHERE run_id = ?",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO settings VALUES ('extra', 'extra', 'm', NULL, NULL, 'Extra', ?)",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO answers VALUES ('q1:extra', 'q1', 'extra', 'An unjudged answer.', ?)",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO claim_verdicts VALUES (?, ?, 'q1:subs-qwen', 'q1.c1', 'contradicted',"
            " 'scripted')",
            [run_id, JUDGE_LLM],
        )
        finish_run(cursor, run_id, n_items=1)


def test_the_grid_says_not_judged_and_never_nan(tmp_path):
    from playwright.sync_api import sync_playwright

    path = tmp_path / "store.duckdb"
    _store(path)
    with running_app(path) as url, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_context(
                viewport={"width": 1400, "height": 2200}, **CONTEXT_OPTIONS
            ).new_page()
            page.goto(f"{url}/verdicts?q=q1&judge={JUDGE_LLM}")
            page.get_by_role("heading", name="Verdicts", exact=True).first.wait_for(timeout=60000)
            page.wait_for_function(
                "() => !!document.querySelector('.js-plotly-plot')"
                " && !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                timeout=60000,
            )
            page.get_by_text("Extra: not judged").first.wait_for(timeout=30000)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "verdicts-grid-not-judged.png"), full_page=True)
            text = page.inner_text("section.main, [data-testid='stMain']")
            legend = page.evaluate(
                "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                ".flatMap(el => el._fullData.map(t => t.name))"
            )
        finally:
            browser.close()
    assert "nan" not in text.lower().split()  # no "■1 nan" chip, no "nan" cell
    assert "■1 nan" not in text and "■1 not judged" in text
    assert "Screenplay / Qwen3.6: 2/2 core" in text  # judged before the newer run: still 2/2
    assert "not judged" in legend
