"""End-to-end review flows of human review in headless Chromium (Debian package, Playwright) against
the real `streamlit run app.py` on a free loopback port over the fixture store: two reviewers in
two browser sessions label claims from the review queue at the same time (keyboard and mouse),
and a question is rejected with a reason. The store is checked afterwards: no label lost.
Screenshots go to test-artifacts/.

Skipped (with the reason) only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import pytest

from data_access.store import Store
from tests.support.app_fixtures import build_app_fixture
from tests.support.app_server import CHROMIUM, CONTEXT_OPTIONS, running_app
from tests.support.browser_session import ARTIFACTS, settle

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian chromium not installed at /usr/bin/chromium (run `make browser`)",
    ),
    pytest.mark.slow,
]
ROUNDS = 3


@pytest.fixture(scope="module")
def review_app(tmp_path_factory):
    """Fixture store + `streamlit run app.py`; yields (base URL, store path)."""
    store_path = tmp_path_factory.mktemp("browser-review") / "store.duckdb"
    build_app_fixture(Store(store_path, lock_timeout=30))
    # each session names its reviewer in the sidebar
    with running_app(store_path, drop_env=("STORYSCOPE_REVIEWER",)) as url:
        yield url, store_path


def _session(browser, url: str, reviewer: str):  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 2200}, **CONTEXT_OPTIONS)
    tab = context.new_page()
    tab.goto(url)
    tab.get_by_role("heading", name=url.rsplit("/", 1)[-1].split("?")[0].title()).first.wait_for(
        timeout=60000
    )
    settle(tab)
    box = tab.get_by_role("textbox", name="Reviewer")
    box.fill(reviewer, timeout=120000)  # the sidebar input is editable once the run settles
    box.press("Enter")
    settle(tab)
    return context, tab


def _pick_verdict(tab, verdict: str) -> None:
    radio = tab.locator('[data-testid="stRadio"]').filter(has_text="Your verdict")
    radio.get_by_text(verdict, exact=True).click()


def _progress(tab) -> str:
    return tab.locator('[data-testid="stProgress"]').first.inner_text()


def _human_labels(store_path) -> dict[str, int]:
    store = Store(store_path, lock_timeout=60)
    rows = store.rows(
        "SELECT judge_id, count(*) FROM current_claim_verdicts WHERE judge_id LIKE 'human:%'"
        " GROUP BY 1"
    )
    return dict(rows)


def test_two_reviewers_label_the_queue_at_once(browser, review_app):  # noqa: F811
    url, store_path = review_app
    ARTIFACTS.mkdir(exist_ok=True)
    sessions = [_session(browser, f"{url}/verdicts?view=Review", name) for name in ("alice", "bob")]
    (_, alice), (_, bob) = sessions
    assert "0 of 14" in _progress(alice) and "0 of 14" in _progress(bob)
    # no verdict is preselected: Enter in the note must not save one nobody chose
    verdicts = alice.locator('[data-testid="stRadio"]').filter(has_text="Your verdict")
    assert verdicts.locator("input:checked").count() == 0
    for round_ in range(ROUNDS):
        # alice uses the keyboard: her note field submits the form on Enter
        _pick_verdict(alice, "omitted")
        note = alice.get_by_role("textbox", name="Note (Enter saves)")
        note.fill(f"alice round {round_}")
        _pick_verdict(bob, "asserted")
        note.press("Enter")
        bob.get_by_role("button", name="Save and next").click()  # both saves in flight at once
        # Wait for each tab's own count, not only for a quiet status widget: under load a rerun
        # can start more than settle's 300 ms after the click, and a click sent before the
        # previous save's rerun has drawn the next claim is merged with that rerun by Streamlit
        # (one form trigger, one save) — the test would click faster than any reviewer can.
        for tab in (alice, bob):
            settle(tab)
            tab.get_by_text(f"{round_ + 1} of 14 claims labelled by you").first.wait_for(
                timeout=60000
            )
    for tab, name in ((alice, "alice"), (bob, "bob")):
        tab.get_by_text(f"{ROUNDS} of 14 claims labelled by you").first.wait_for(timeout=60000)
        assert tab.locator('[data-testid="stException"]').count() == 0
        tab.screenshot(path=str(ARTIFACTS / f"review-queue-{name}.png"), full_page=True)
    for context, _ in sessions:
        context.close()
    assert _human_labels(store_path) == {"human:alice": ROUNDS, "human:bob": ROUNDS}


def test_reject_a_question_with_a_reason(browser, review_app):  # noqa: F811
    url, store_path = review_app
    context, tab = _session(browser, f"{url}/questions?q=q2", "carol")
    decision = tab.locator('[data-testid="stRadio"]').filter(has_text="Decision")
    assert decision.locator("input:checked").count() == 0  # nothing chosen before reading
    decision.get_by_text("reject", exact=True).click()
    settle(tab)
    reasons = tab.locator('[data-testid="stMultiSelect"]').filter(has_text="Reasons")
    reasons.locator("input").click()
    tab.get_by_role("option", name="ambiguous holder").click()
    tab.keyboard.press("Escape")
    tab.get_by_role("button", name="Save: reject").click()
    settle(tab)
    tab.get_by_text("Decisions (newest first)").first.wait_for(timeout=60000)
    assert tab.locator('[data-testid="stException"]').count() == 0
    tab.screenshot(path=str(ARTIFACTS / "question-rejected.png"), full_page=True)
    context.close()
    store = Store(store_path, lock_timeout=60)
    assert store.rows("SELECT status FROM questions WHERE question_id = 'q2'") == [("retired",)]
    assert store.rows("SELECT reviewer, reasons FROM question_reviews") == [
        ("carol", ["ambiguous holder"])
    ]
