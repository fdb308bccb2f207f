"""AppTest: the Runs page lists runs, jobs and a failed call's raw reply."""

from __future__ import annotations

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
