"""Runs → Import results: an imported setting keeps the name the user typed (the label every
page shows), and a finished import says what to do next (judge these answers, open them)."""

from __future__ import annotations

from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT

CSV = b"question_id,answer\nq1,Ann believes the boat comes on Friday.\nq2,Ben fixed the lamp.\n"


def test_an_import_keeps_the_typed_name_and_says_what_next(store):
    build_app_fixture(store)
    at = run_page(REPO_ROOT, "runs_page")
    at.text_input(key="import_setting").set_value("My GPT run, no video").run()
    at.file_uploader(key="import_upload").set_value(("answers.csv", CSV, "text/csv"))
    at = at.run()
    assert not at.exception
    at = at.button(key="import_commit").click().run()
    assert not at.exception and at.success
    setting_id, label = store.rows(
        "SELECT setting_id, label FROM settings WHERE setting_id NOT IN"
        " ('screenplay-qwen', 'subs-qwen')"
    )[0]
    assert label == "My GPT run, no video"
    steps = next(m.value for m in at.markdown if m.value.startswith("Next:"))
    assert "[judge these answers](verdicts?setting=" in steps
    assert "[open them in Verdicts](verdicts?setting=" in steps
    assert any("--where" in c.value and setting_id in c.value for c in at.code)
