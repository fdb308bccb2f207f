"""AppTest: Compare offers only the settings the judge scored and opens on the pair with the
most questions both answered (pipelines.compare.judged_settings)."""

from __future__ import annotations

from data_access.queries import verdicts_view
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.compare import judged_settings
from tests.support.app_fixture_data import JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT


def _add_setting(cursor, setting: str, label: str, questions: list[str], run_id: str) -> None:
    cursor.execute(
        "INSERT INTO settings VALUES (?, 'extra', 'm', NULL, NULL, ?, ?)", [setting, label, run_id]
    )
    for question in questions:
        cursor.execute(
            "INSERT INTO answers VALUES (?, ?, ?, 'An answer.', ?)",
            [f"{question}:{setting}", question, setting, run_id],
        )


def test_compare_offers_judged_settings_and_the_most_shared_pair(store):
    build_app_fixture(store)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="judge", backend="openai", model="gpt-test"))
        # first by label, judged on one question only: the old default paired it with the next
        _add_setting(cursor, "aaa-one", "A one-question setting", ["q1"], run_id)
        # answered every question, never judged: nothing to compare
        _add_setting(cursor, "unjudged", "An unjudged setting", ["q1", "q2", "q3"], run_id)
        cursor.execute(
            "INSERT INTO claim_verdicts SELECT ?, ?, 'q1:aaa-one', claim_id, 'asserted', NULL"
            " FROM rubric_claims WHERE question_id = 'q1'",
            [run_id, JUDGE_LLM],
        )
        cursor.execute(
            "UPDATE runs SET started_at = current_timestamp + INTERVAL 1 DAY WHERE run_id = ?",
            [run_id],
        )
        finish_run(cursor, run_id, n_items=3)
    judged = judged_settings(verdicts_view.answer_counts(store, JUDGE_LLM))
    assert judged.settings == ["aaa-one", "screenplay-qwen", "subs-qwen"]
    assert judged.pair == ("screenplay-qwen", "subs-qwen")

    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Compare"})
    assert not at.exception
    a, b = at.selectbox(key="cmp_a"), at.selectbox(key="cmp_b")
    assert (a.value, b.value) == ("screenplay-qwen", "subs-qwen")
    assert "unjudged" not in a.options and "An unjudged setting" not in a.options
    assert {m.label: m.value for m in at.metric}["Questions both answered"] == "3"


def test_compare_says_when_the_judge_scored_fewer_than_two_settings(store):
    build_app_fixture(store)
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM claim_verdicts WHERE answer_id LIKE '%subs-qwen'")
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Compare"})
    assert not at.exception
    assert any("needs two settings judged by" in c.value for c in at.caption)
