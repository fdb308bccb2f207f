"""AppTest: "Generate on this slice" on the Questions page — dry run, job, new run's summary,
and the run filter it links to, offline with the template writer."""

from __future__ import annotations

import pytest

from tests.support.apptest_pages import metrics, run_page
from tests.support.paths import REPO_ROOT
from ui.generate_button import TEMPLATE_LABEL

NO_ENDPOINT = ("STORYSCOPE_LLM_BASE_URL", "STORYSCOPE_LLM_API_KEY", "OPENAI_API_KEY")


@pytest.fixture
def fixture_store(fixture_store, monkeypatch):
    for name in NO_ENDPOINT:
        monkeypatch.delenv(name, raising=False)
    return fixture_store


def _dry_run(at, n: int):
    at.number_input(key="gen_n").set_value(n)
    at.checkbox(key="gen_analytics").uncheck()
    at.button(key="gen_dry_run").click().run()
    assert not at.exception
    return metrics(at)


def test_dry_run_counts_the_slice_and_writes_nothing(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"film": "lighthouse"}, timeout=120)
    assert at.radio(key="gen_backend").options == [TEMPLATE_LABEL]
    assert any("only the offline template writer" in c.value for c in at.caption)
    runs_before = fixture_store.scalar("SELECT count(*) FROM runs")
    shown = _dry_run(at, 4)
    # the fixture film: 23 context-sets over all types, 9 anchored in interpolated scenes and 1
    # whose center is absent from the anchor scene are discarded (App. F.1), 4 sampled
    assert shown == {
        "Context-sets": "23",
        "Kept": "13",
        "Items": "4",
        "Cache hits": "0",
        "Est. tokens": "0",
        "Est. cost (USD)": "0.0000",
    }
    plan_caption = next(c.value for c in at.caption if c.value.startswith("dry run"))
    assert TEMPLATE_LABEL in plan_caption
    assert "anchor_interpolated 9" in plan_caption and "center_absent_from_anchor 1" in plan_caption
    assert fixture_store.scalar("SELECT count(*) FROM runs") == runs_before


def test_slice_filters_narrow_the_dry_run(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"film": "lighthouse", "qtype": "Q1"}, timeout=120)
    shown = _dry_run(at, 20)
    plan_caption = next(c.value for c in at.caption if c.value.startswith("dry run"))
    assert (
        "items by type: Q1 " in plan_caption and "Q2" not in plan_caption.split("items by type")[1]
    )
    assert int(shown["Items"]) == int(plan_caption.rsplit("Q1 ", 1)[1].split()[0])


@pytest.mark.slow
def test_generation_job_writes_a_new_run_and_links_to_it(fixture_store):
    from pipelines.jobs import wait_for

    at = run_page(REPO_ROOT, "questions_page", {"film": "lighthouse"}, timeout=180)
    _dry_run(at, 4)
    at.button(key="gen_start").click().run()
    job_id = at.session_state["gen_job"]["job_id"]
    wait_for(job_id, 300)
    at.run()
    assert not at.exception
    run_id = fixture_store.scalar("SELECT run_id FROM jobs WHERE job_id = ?", [job_id])
    status, backend, items = fixture_store.rows(
        "SELECT status, backend, n_items FROM runs WHERE run_id = ?", [run_id]
    )[0]
    assert (status, backend, items) == ("finished", "template", 4)
    assert at.success[0].value == f"Job {job_id} finished: new run {run_id} (4 questions)."
    statuses = next(d.value for d in at.dataframe if "final_status" in d.value.columns)
    assert statuses["questions"].sum() == 4
    assert set(statuses["final_status"]) <= {"candidate", "retired", "failed", "thin"}
    failed_checks = fixture_store.scalar(
        "SELECT count(*) FROM question_check_failures WHERE run_id = ?", [run_id]
    )
    shown_failures = [d.value for d in at.dataframe if "check_name" in d.value.columns]
    assert (shown_failures[0]["questions"].sum() if shown_failures else 0) == failed_checks
    assert any(
        m.value == f"[Open the run in Question Lab](qlab?check_run={run_id}&analytics_run={run_id})"
        for m in at.markdown
    )
    at.button(key="gen_show_run").click().run()
    assert not at.exception
    assert at.selectbox(key="gen_run").value == run_id
    listed = at.dataframe[0].value
    assert len(listed) == 4 and all(q.endswith(f"@{run_id}") for q in listed["question_id"])
    assert set(listed["source"]) == {"generated"}
    # a generated question has its evidence map: the carried scenes, not "0 scenes over 0 min"
    summary = [e.value for e in (*at.caption, *at.markdown) if "evidence:" in str(e.value)]
    assert summary and "evidence: 0 scenes" not in summary[0], summary


def test_a_film_without_questions_still_offers_generation(fixture_store):
    """The ToM story has beliefs but no questions: the panel shows under the notice, and its two
    context-sets are both discarded (the centers are never named aloud), so nothing can start."""
    at = run_page(REPO_ROOT, "questions_page", {"film": "tom-story-1"}, timeout=120)
    assert [i.value for i in at.info] == [
        "No open-ended questions here. Import LF-VideoQA questions or generate some."
    ]
    at.button(key="gen_dry_run").click().run()
    assert not at.exception
    assert metrics(at)["Context-sets"] == "2" and metrics(at)["Items"] == "0"
    assert any("center_never_named 2" in c.value for c in at.caption)
    assert at.button(key="gen_start").disabled
