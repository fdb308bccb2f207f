"""AppTest: the Verdicts page's "why" table (the lexical cue first, wrapped cells, the paper's
judge's printed counts beside ours) and the Metrics note when the only judge is lexical."""

from __future__ import annotations

import pytest

from data_access.importers import import_lfvqa_dir
from data_access.tables.runs import RunSpec, finish_run, insert_run
from tests.support.apptest_pages import frame, run_page
from tests.support.paths import REPO_ROOT

QUESTION = "lfvqa-paper-T12-N2"  # one of the paper's printed questions (App. H, Table 12)


@pytest.fixture
def paper_judged_lexically(store):
    """The paper's released examples, the printed question's answers judged by a lexical
    judge only (every claim asserted, as a word-overlap judge can say of a contradiction)."""
    import_lfvqa_dir(store, REPO_ROOT / "samples" / "lfvqa_paper")
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="judge", backend="lexical"))
        cursor.execute(
            "INSERT INTO judges VALUES ('lexical', 'lexical', 'lexical', NULL, 'v1', ?)", [run_id]
        )
        cursor.execute(
            "INSERT INTO claim_verdicts SELECT ?, 'lexical', a.answer_id, c.claim_id,"
            " 'asserted', 'similarity 0.70 with sentence 1'"
            " FROM answers a JOIN rubric_claims c USING (question_id) WHERE a.question_id = ?",
            [run_id, QUESTION],
        )
        finish_run(cursor, run_id, n_items=4)
    return store


def test_why_shows_the_cue_first_wrapped_and_the_paper_judges_counts(paper_judged_lexically):
    at = run_page(REPO_ROOT, "verdicts_page", {"q": QUESTION})
    assert not at.exception
    table = frame(at, "claim", "setting", "lexical")
    paper = "paper's judge (printed)"
    assert paper in table.columns
    screenplay = table[table["setting"] == "Qwen3.6 · Screenplay"][paper]
    # Table 12 prints the screenplay answer asserting 1 of its 2 core claims
    assert set(screenplay) == {"1/2 core asserted · LF-VideoQA Table 12"}
    assert table["lexical"].str.startswith("asserted — negation in claim: ").all()
    why = next(d for d in at.dataframe if "claim" in d.value.columns and paper in d.value.columns)
    assert why.proto.row_height > 64  # taller than 4rem: Streamlit wraps the cells' text


def test_metrics_say_when_the_only_judge_is_lexical(paper_judged_lexically):
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Metrics"})
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "The only judge here is" in warning and "lexical judge" in warning
    assert "contradicts the film" in warning


def test_metrics_say_nothing_of_the_kind_for_an_llm_judge(store):
    from tests.support.app_fixture_data import JUDGE_LLM
    from tests.support.app_fixtures import build_app_fixture

    build_app_fixture(store)
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Metrics", "judge": JUDGE_LLM})
    assert not any("lexical judge" in w.value for w in at.warning)
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Metrics", "judge": "lexical-overlap"})
    warning = " ".join(w.value for w in at.warning)
    assert "lexical judge" in warning and "The only judge here is" not in warning
