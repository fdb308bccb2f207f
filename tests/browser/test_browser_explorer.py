"""End-to-end in headless Chromium (Debian package, Playwright): the real `streamlit run app.py`
on a free loopback port over the fixture store, with the judge pointed at the local scripted
OpenAI-compatible server. One server per module; screenshots go to test-artifacts/.

Skipped (with the reason) only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from data_access.store import Store
from tests.support.app_fixtures import FILM, build_app_fixture
from tests.support.app_server import CHROMIUM, running_app
from tests.support.browser_session import (
    ARTIFACTS,
    PAGES,
    judge_everything_asserted,
    settle,
)
from ui.common import VERSION_TTL_S

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def app_store_path(tmp_path_factory):
    """The fixture store the module's app serves (tests read what its jobs wrote)."""
    return tmp_path_factory.mktemp("browser") / "store.duckdb"


@pytest.fixture(scope="module")
def app_url(app_store_path):
    """Fixture store + scripted LLM server + `streamlit run app.py`; yields the base URL."""
    from tests.support.fake_server import FakeLLMServer

    build_app_fixture(Store(app_store_path, lock_timeout=30))
    with FakeLLMServer(judge_everything_asserted) as llm:
        env = {
            "STORYSCOPE_LLM_BASE_URL": llm.base_url,
            "STORYSCOPE_LLM_MODEL": "scripted-judge",
            "STORYSCOPE_LLM_API_KEY": "test-key-not-secret",
        }
        with running_app(app_store_path, env=env) as url:
            yield url


def _open(page, url: str, title: str) -> None:
    page.goto(url)
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=60000)
    page.wait_for_load_state("networkidle")
    settle(page)


def _figure(page, index: int = 0) -> dict:
    """The data of the index-th Plotly chart on the page (Plotly keeps it on its div)."""
    # the charts render one after another: wait until this one has drawn its data
    page.wait_for_function(
        "(i) => { const el = document.querySelectorAll('.js-plotly-plot')[i];"
        " return !!(el && el._fullData); }",
        arg=index,
        timeout=30000,
    )
    return page.evaluate(
        "(i) => { const el = document.querySelectorAll('.js-plotly-plot')[i];"
        " return {data: el._fullData.map(t => ({name: t.name, x: Array.from(t.x || [])})),"
        " yticks: (el.layout.yaxis || {}).ticktext || []}; }",
        index,
    )


def _choose(page, label: str, option: str) -> None:
    """Pick an option of the Streamlit selectbox with this label."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    box.locator("input").click()
    page.get_by_role("option", name=option).first.click()
    settle(page)


def test_every_page_renders(page, app_url):
    ARTIFACTS.mkdir(exist_ok=True)
    for path, title in PAGES.items():
        _open(page, f"{app_url}/{path}", title)
        assert page.locator('[data-testid="stException"]').count() == 0, f"exception on /{path}"
        page.screenshot(path=str(ARTIFACTS / f"page-{path or 'overview'}.png"), full_page=True)


def test_filter_changes_the_figure(page, app_url):
    _open(page, f"{app_url}/questions?q=q1", "Questions")
    before = {t["name"]: t["x"] for t in _figure(page)["data"]}
    assert before["anchor ▲"] == [40]
    _choose(page, "Question", "q2 — N2")
    # the rerun replaces the figure: between the old and the new one there may be none
    page.wait_for_function(
        "() => { const el = document.querySelector('.js-plotly-plot');"
        " const anchor = el && el._fullData && el._fullData.find(t => t.name === 'anchor ▲');"
        " return !!anchor && anchor.x[0] === 50; }",
        timeout=30000,
    )
    assert "q=q2" in page.url
    page.screenshot(path=str(ARTIFACTS / "questions-after-filter.png"), full_page=True)


def test_shared_url_restores_the_view(page, app_url):
    _open(
        page, f"{app_url}/beliefs?film=lighthouse&who=Ben&belief=Ben+%C2%B7+F2", "Belief timelines"
    )
    figure = _figure(page, 1)  # the belief groups chart comes first, the lanes second
    assert figure["yticks"] == ["Ben · B1", "Ben · F2", "Ben · B3"]
    page.get_by_text("Ann fixed the lamp.").first.wait_for(timeout=30000)
    page.screenshot(path=str(ARTIFACTS / "beliefs-from-url.png"), full_page=True)


def test_judge_button_runs_a_job_against_the_local_server(page, app_url, app_store_path):
    """Verdicts → "Rerun judge on this slice" with the scripted judge (every claim asserted):
    dry run, job, and the flip count the page shows equals the store's, counted here."""
    _open(page, f"{app_url}/verdicts?film=lighthouse", "Verdicts")
    page.screenshot(path=str(ARTIFACTS / "verdicts-deep-link.png"), full_page=True)
    page.get_by_text("openai · scripted-judge").first.wait_for(timeout=60000)
    page.get_by_role("button", name="Dry run").click()
    page.get_by_text("dry run · judge").first.wait_for(timeout=60000)
    page.get_by_role("button", name="Start judge job").click()
    page.get_by_text("finished: new run").first.wait_for(timeout=120000)
    page.get_by_text("Flipped against the previous run").first.wait_for(timeout=30000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / "verdicts-after-judge-job.png"), full_page=True)
    caption = page.get_by_text(re.compile(r"previous run .*→ new run ")).first.inner_text()
    baseline, new_run = re.search(r"previous run (\S+).*→ new run (\S+)", caption).groups()
    metric = page.locator('[data-testid="stMetric"]', has_text="Flipped against").first
    shown = re.search(r"(\d+) of (\d+)", metric.inner_text()).groups()
    flips, overlap, new_labels = _flips(app_store_path, baseline, new_run)
    assert new_labels == {"asserted"}  # the scripted judge's labels reached the store
    assert overlap > 0 and flips > 0  # the fixture's earlier run has non-asserted claims
    assert shown == (str(flips), str(overlap))


def _flips(app_store_path, baseline: str, new_run: str) -> tuple[int, int, set[str]]:
    """Counted apart from the page's query: the new run asserts every claim, so a flip is an
    overlapping baseline verdict that is not 'asserted'."""
    store = Store(app_store_path, lock_timeout=30)  # waits while the app holds the file
    new = store.df(
        "SELECT answer_id, claim_id, verdict FROM claim_verdicts WHERE run_id = ?", [new_run]
    )
    old = store.df(
        "SELECT answer_id, claim_id, verdict FROM claim_verdicts WHERE run_id = ?", [baseline]
    )
    both = old.merge(new, on=["answer_id", "claim_id"], suffixes=("_old", "_new"))
    flips = int((both["verdict_old"] != both["verdict_new"]).sum())
    return flips, len(both), set(new["verdict"])


def test_generate_button_runs_a_job_and_filters_to_the_new_run(page, app_url):
    """Questions → "Generate on this slice" with the offline template writer (labelled): dry run,
    job, the new run's summary, then the list filtered to that run (URL-bound)."""
    from ui.generate_button import TEMPLATE_LABEL

    _open(page, f"{app_url}/questions?film=lighthouse", "Questions")
    page.get_by_text("Generate on this slice").first.click()
    page.get_by_text(TEMPLATE_LABEL).first.click()  # an endpoint is configured: pick offline
    settle(page)
    page.get_by_text("Near-duplicates, map and Self-BLEU (slower)").first.click()
    settle(page)
    page.get_by_role("button", name="Dry run").click()
    page.get_by_text(f"dry run · {TEMPLATE_LABEL}").first.wait_for(timeout=60000)
    page.get_by_role("button", name="Start generation job").click()
    page.get_by_text("finished: new run qgen-generate-").first.wait_for(timeout=120000)
    page.get_by_text("Final status").first.wait_for(timeout=30000)
    page.get_by_role("button", name="Show the new run's questions").click()
    page.wait_for_function(
        "() => window.location.search.includes('gen_run=qgen-generate-')", timeout=60000
    )
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / "questions-after-generate-job.png"), full_page=True)


def test_download_button_writes_the_rows_the_page_shows(page, app_url):
    """The file is written when the button is clicked (deferred), and holds the page's rows."""
    import io

    import pandas as pd

    _open(page, f"{app_url}/film?film={FILM}", "Film")
    button = page.get_by_role("button", name=re.compile(r"^Download \d+ rows")).first
    shown = int(re.search(r"Download (\d+) rows", button.inner_text()).group(1))
    with page.expect_download() as download:
        button.click()
    frame = pd.read_parquet(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert len(frame) == shown > 0 and {"scene_index", "heading"} <= set(frame.columns)


def _write_with_a_run(app_store_path, step: str, statements: list[tuple[str, list]], **spec):
    """Write rows under a new finished run while the app serves the store (the new run changes
    the store's version token, so the app's cached queries see the rows once the token the app
    holds expires: this waits that long, as earlier tests of the module just cached one)."""
    from data_access.tables.runs import RunSpec, finish_run, insert_run

    store = Store(app_store_path, lock_timeout=30)  # waits while the app holds the file
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step=step, **spec))
        for sql, params in statements:
            cursor.execute(sql, [*params, run_id])
        finish_run(cursor, run_id)
    time.sleep(VERSION_TTL_S + 0.2)


def test_belief_timelines_after_the_film_page_opens_on_a_film_with_beliefs(
    page, app_url, app_store_path
):
    """The Film page's film (no beliefs) carried over to Belief timelines, which
    opened on "No belief records for this film yet". It must open on a film with beliefs."""
    _write_with_a_run(
        app_store_path,
        "test.film",
        [
            (
                "INSERT INTO films (film_id, dataset_id, title, kind, runtime_s, run_id)"
                " VALUES ('aaa-no-beliefs', 'fixture', 'Aaa No Beliefs', 'film', 600, ?)",
                [],
            ),
            (
                "INSERT INTO scenes (film_id, scene_index, heading, start_s, end_s, time_source,"
                " run_id) VALUES ('aaa-no-beliefs', 0, 'INT. ROOM', 0, 600, 'matched', ?)",
                [],
            ),
        ],
        backend="fixture",
    )
    _open(page, f"{app_url}/film?film=aaa-no-beliefs", "Film")
    page.get_by_role("link", name="Belief timelines").first.click()
    page.get_by_role("heading", name="Belief timelines", exact=True).first.wait_for(timeout=60000)
    settle(page)
    page.get_by_text("has no beliefs yet: showing").first.wait_for(timeout=30000)
    # the caption is drawn before the charts: wait for both (group lanes, belief lanes)
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=60000)
    assert page.get_by_text("No belief records for this film yet").count() == 0
    page.screenshot(path=str(ARTIFACTS / "beliefs-after-film-page.png"), full_page=True)


def test_a_gold_score_is_shown_on_its_own_film_only(page, app_url, app_store_path):
    """A Hi-ToM story showed "Scored on The Keeper's Ledger's gold …"."""
    scores = {"backend": "rules", "precision": 0.5, "recall": 0.4}
    scores |= {"false_belief_recall": 0.3, "revision_recall": 0.2, "kappa": 0.6}
    scores |= {"accuracy": 0.8}
    _write_with_a_run(
        app_store_path,
        "gold.eval",
        [],
        backend="gold",
        source="the-keepers-ledger",
        params={"beliefs": scores, "judge": scores},
    )
    _open(page, f"{app_url}/verdicts", "Verdicts")  # all films: the showcase's score, named
    page.get_by_text("Scored on The Keeper's Ledger's gold").first.wait_for(timeout=30000)
    for film in ("tom-story-1", FILM):
        _open(page, f"{app_url}/beliefs?film={film}", "Belief timelines")
        page.locator(".js-plotly-plot").first.wait_for(timeout=30000)
        assert page.get_by_text("Scored on").count() == 0, film
    page.screenshot(path=str(ARTIFACTS / "beliefs-story-no-gold-caption.png"), full_page=True)
