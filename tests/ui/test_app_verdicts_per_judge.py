"""AppTest: the claims × settings grid shows each judge's current verdicts (its runs are history),
says "not judged" in words, and its caption counts core claims from those verdicts."""

from __future__ import annotations

import pytest

from data_access.queries import verdicts_view
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines import verdict_metrics
from tests.support.app_fixture_data import JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import figures, run_page, traces
from tests.support.hostile import unescape_markdown
from tests.support.paths import REPO_ROOT


@pytest.fixture
def partly_rejudged(store):
    """The fixture, then a newer LLM judge run that judged one answer only (as after judging
    newly imported answers): it says claim 1 of q1's subtitles answer is contradicted."""
    build_app_fixture(store)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="judge", backend="openai", model="gpt-test"))
        cursor.execute(
            "UPDATE runs SET started_at = current_timestamp + INTERVAL 1 DAY WHERE run_id = ?",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO claim_verdicts VALUES (?, ?, 'q1:subs-qwen', 'q1.c1', 'contradicted',"
            " 'the answer says the opposite')",
            [run_id, JUDGE_LLM],
        )
        finish_run(cursor, run_id, n_items=1)
    return store, run_id


def _captions(at) -> str:
    return " ".join(unescape_markdown(c.value) for c in at.caption)


def test_a_partial_run_leaves_the_other_answers_judged(partly_rejudged):
    store, newest = partly_rejudged
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "judge": JUDGE_LLM})
    assert not at.exception
    assert at.selectbox(key="run").value == "current"
    grid = traces(figures(at)["verdict_grid"])
    assert "not judged" not in grid  # every claim of both answers keeps its current verdict
    assert len(grid["contradicted"].x) == 2  # the new run's claim 1, the older run's claim 3
    # the screenplay answer kept its verdicts from the older run: 2/2 core, not "0/2"
    assert "Screenplay / Qwen3.6: 2/2 core" in _captions(at)
    assert "Subtitles / Qwen3.6: 1/2 core" in _captions(at)
    # the newest run alone, read as history, judged one claim of one answer
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "judge": JUDGE_LLM, "run": newest})
    grid = traces(figures(at)["verdict_grid"])
    assert len(grid["not judged"].x) == 5 and len(grid["contradicted"].x) == 1
    assert "Screenplay / Qwen3.6: not judged" in _captions(at)
    assert "Subtitles / Qwen3.6: 0/2 core, 1 not judged" in _captions(at)


def test_the_grid_per_judge_is_each_judges_current_verdicts(partly_rejudged):
    store, _ = partly_rejudged
    grid = verdicts_view.judge_grid(store, "q1", JUDGE_LLM)
    current = verdicts_view.claim_judgements(store, "q1")
    current = current[current["judge_id"] == JUDGE_LLM]
    got = dict(zip(zip(grid["answer_id"], grid["ord"]), grid["verdict"]))
    want = dict(zip(zip(current["answer_id"], current["ord"]), current["verdict"]))
    assert got == want and len(got) == 6


def test_unjudged_answers_say_not_judged_in_words(store):
    build_app_fixture(store)
    with store.transaction() as cursor:
        run_id = cursor.execute("SELECT run_id FROM answers LIMIT 1").fetchone()[0]
        cursor.execute(
            "INSERT INTO settings VALUES ('extra', 'extra', 'm', NULL, NULL, 'Extra', ?)",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO answers VALUES ('q1:extra', 'q1', 'extra', 'An unjudged answer.', ?)",
            [run_id],
        )
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1"})
    assert not at.exception
    answer = next(m.value for m in at.markdown if m.value.startswith("**Extra**"))
    assert "nan" not in answer and "■1 not judged" in answer
    assert "Extra: not judged" in _captions(at)
    assert len(traces(figures(at)["verdict_grid"])["not judged"].x) == 3


def test_core_counts_never_read_an_unjudged_claim_as_a_zero():
    import pandas as pd

    grid = pd.DataFrame(
        {
            "setting": ["A", "A", "B", "B", "C"],
            "ord": [1, 2, 1, 2, 1],
            "role": ["core", "core", "core", "core", "core"],
            "verdict": ["asserted", None, None, None, "omitted"],
        }
    )
    labels = dict(zip(*verdict_metrics.core_counts(grid)[["setting", "label"]].T.values))
    assert labels == {"A": "1/2 core, 1 not judged", "B": "not judged", "C": "0/1 core"}
