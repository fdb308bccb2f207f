"""AppTest: the Runs page lists runs, jobs and a failed call's raw reply."""

from __future__ import annotations

import streamlit as st

from tests.support.apptest_pages import metrics, run_page
from tests.support.paths import REPO_ROOT


def test_runs_jobs_usage_and_raw_reply_of_failure(fixture_runs):
    runs = fixture_runs
    at = run_page(REPO_ROOT, "runs_page", {"run": runs["failed"]})
    assert not at.exception
    shown = metrics(at)
    assert (
        shown["Runs shown"] == "13" and shown["Tokens"] == "704" and shown["Cost (USD)"] == "0.0021"
    )
    assert shown["Cache hits"] == "1 of 3 calls"
    jobs = at.dataframe[0].value.set_index("job_id")
    assert jobs.loc["job-1", "progress"] == 1.0 and jobs.loc["job-2", "state"] == "failed"
    assert at.expander[0].label == "failed: q9 — reply is not valid JSON"
    assert at.code[0].value == '{"verdicts": [oops'


def test_filter_by_step_from_url(fixture_store):
    at = run_page(REPO_ROOT, "runs_page", {"step": "judge"})
    assert not at.exception
    runs = at.dataframe[1].value
    assert set(runs["step"]) == {"judge"} and len(runs) == 2
    assert set(runs["backend"]) == {"lexical", "openai"}


def test_runs_table_draws_missing_cells_as_a_dash(fixture_store):
    at = run_page(REPO_ROOT, "runs_page", {"step": "judge"})
    assert not at.exception
    runs = at.dataframe[1].value.set_index("backend")
    assert runs.loc["lexical", "model"] == "—"  # the offline judge has no model, not "None"
    assert runs.loc["openai", "model"] != "—"
    for column in ("model", "n_failed", "note"):
        assert not runs[column].isna().any(), column


def test_a_run_without_a_failure_count_says_so(store, fixture_runs):
    runs = fixture_runs
    at = run_page(REPO_ROOT, "runs_page", {"run": runs["failed"]})
    head = next(m.value for m in at.markdown if m.value.startswith("**"))
    assert " · failed " in head and "None" not in head
    with store.transaction() as cursor:
        cursor.execute("UPDATE runs SET n_failed = NULL WHERE run_id = ?", [runs["failed"]])
    st.cache_data.clear()  # a bare UPDATE does not move the store's version token
    at = run_page(REPO_ROOT, "runs_page", {"run": runs["failed"]})
    assert not at.exception
    head = next(m.value for m in at.markdown if m.value.startswith("**"))
    assert head.endswith(" · failed not recorded")


def test_the_calls_table_draws_a_call_without_an_error_as_a_dash(fixture_runs):
    def calls_of(run_id):
        at = run_page(REPO_ROOT, "runs_page", {"run": run_id})
        assert not at.exception
        return next(frame.value for frame in at.dataframe if "latency_ms" in frame.value.columns)

    failed = calls_of(fixture_runs["failed"]).set_index("item_id")
    assert failed.loc["q9", "error"] == "reply is not valid JSON"
    # a call that failed before any reply has no tokens, cost or latency to show
    no_reply = failed.loc["q9", ["prompt_tokens", "completion_tokens", "cost_usd", "latency_ms"]]
    assert list(no_reply) == ["—"] * 4
    answered = calls_of(fixture_runs["judge_llm"])
    assert len(answered) == 2 and set(answered["status"]) == {"ok"}
    assert (answered["error"] == "—").all()  # not the word None
    # latency in whole milliseconds on screen
    assert answered["latency_ms"].dtype.kind in "iu"
