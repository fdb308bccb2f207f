"""The question-shape rollup (migration 972, data_access.rollups.questions) and the Verdicts
page's large-slice metrics: the Distributions and Questions readers give the live
answer from the rollup, a finished run that writes scenes, evidence or questions updates it
for exactly the questions it can change (equal to a full refresh, without one), and a slice
above the limit computes its metrics only when asked."""

from __future__ import annotations

import pandas as pd
import pytest

from data_access import rollups
from data_access.importers import import_lfvqa_dir
from data_access.queries import distributions_view, questions_view, verdicts_view
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.synth import write_synthetic_dataset
from tests.support.app_fixture_data import FILM, JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT
from tests.support.rollup_check import assert_rollups_hold_their_definitions
from tests.support.store_files import store_copy

FULL_REFRESH = rollups.refresh_rollups  # before a test counts calls to it


def _shape_rows(cursor) -> list[tuple]:
    return cursor.execute("SELECT * FROM rollup_question_shape ORDER BY ALL").fetchall()


def _count_rows(cursor) -> list[tuple]:
    return cursor.execute("SELECT * FROM rollup_question_counts ORDER BY ALL").fetchall()


def _full_refresh_rows(store) -> tuple[list[tuple], list[tuple]]:
    """What a full refresh would hold now (computed and rolled back): shapes and counts."""
    with store.session() as cursor:
        cursor.execute("BEGIN TRANSACTION")
        try:
            FULL_REFRESH(cursor)
            return _shape_rows(cursor), _count_rows(cursor)
        finally:
            cursor.execute("ROLLBACK")


def _fill_and_refresh(store, folder) -> None:
    build_app_fixture(store)
    rollups.refresh(store)


@pytest.fixture
def fresh_fixture(store_path, seeded_template):
    """The app fixture with its rollups refreshed: a copy of one built once per test process."""
    return store_copy(seeded_template("app-fixture-refreshed", _fill_and_refresh), store_path)


@pytest.fixture
def full_refreshes(monkeypatch):
    from data_access.rollups import freshness  # where `finish_run` calls it

    calls = []
    real = freshness.refresh_rollups
    monkeypatch.setattr(freshness, "refresh_rollups", lambda c: calls.append(1) or real(c))
    return calls


def test_a_refresh_fills_the_rollups_as_their_definitions(fresh_fixture):
    store = fresh_fixture
    assert rollups.rollups_fresh(store)
    assert store.scalar("SELECT count(*) FROM rollup_question_shape") == store.scalar(
        "SELECT count(*) FROM questions"
    )
    assert_rollups_hold_their_definitions(store)


def test_a_synthetic_import_fills_it_in_its_commit(tmp_path, store):
    write_synthetic_dataset(tmp_path / "synth", scale="small")
    import_lfvqa_dir(store, tmp_path / "synth")
    assert rollups.rollups_fresh(store)  # the import's run filled the rollup in its commit
    shape = distributions_view.question_shape(store, None)
    assert shape.questions == store.scalar("SELECT count(*) FROM questions")
    assert min(shape.value_counts("claims").index) > 0
    assert set(shape.value_counts("anchor_fifth").index) <= {1, 2, 3, 4, 5}
    assert_rollups_hold_their_definitions(store)
    rollups.refresh(store)  # a full refresh gives the same rows again
    assert_rollups_hold_their_definitions(store)


_HOURS = iter(range(1, 1000))


def _finish(store, write, status: str = "finished") -> list[tuple]:
    """Write a run's rows with `write(cursor, run_id)`, finish it in the same transaction (a run
    started after every other, so its scenes become current), and check the rollup equals a
    full refresh; returns its rows."""
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="test.step", backend="test", params={}))
        cursor.execute(
            "UPDATE runs SET started_at = current_timestamp + ? * INTERVAL 1 HOUR WHERE run_id = ?",
            [next(_HOURS), run_id],
        )
        write(cursor, run_id)
        finish_run(cursor, run_id, status=status)
    assert rollups.rollups_fresh(store)
    with store.session() as cursor:
        rows, counts = _shape_rows(cursor), _count_rows(cursor)
    assert (rows, counts) == _full_refresh_rows(store)
    assert counts, "the question counts rollup is empty: the check would be too"
    return rows


def _rescene(cursor, run_id: str, shift_s: float) -> None:
    """A new scene run for the film: every scene as before, each ending `shift_s` later."""
    cursor.execute(
        "INSERT INTO scenes SELECT * REPLACE (end_s + ? AS end_s, ? AS run_id)"
        " FROM current_scenes WHERE film_id = ?",
        [shift_s, run_id, FILM],
    )


def test_a_scene_run_moves_the_spans_of_its_films_questions(fresh_fixture, full_refreshes):
    store = fresh_fixture
    with store.session() as cursor:
        before = _shape_rows(cursor)
    after = _finish(store, lambda c, r: _rescene(c, r, 120.0))
    assert after != before  # the latest cited scene ends two minutes later
    spans = {row[0]: row[7] for row in before}
    moved = [row for row in after if row[7] is not None and spans[row[0]] is not None]
    assert moved and all(row[7] == pytest.approx(spans[row[0]] + 2.0) for row in moved)
    # a failed scene run's scenes are not current: nothing changes
    assert _finish(store, lambda c, r: _rescene(c, r, 600.0), status="failed") == after
    assert full_refreshes == []
    assert_rollups_hold_their_definitions(store)


def test_new_evidence_and_rubric_claims_update_their_question(fresh_fixture, full_refreshes):
    store = fresh_fixture
    question = questions_view.questions_list(store, FILM)["question_id"].iloc[0]
    sizes = "SELECT claims, core, cited_scenes FROM rollup_question_shape WHERE question_id = ?"
    old = store.rows(sizes, [question])[0]

    def more(cursor, run_id):
        cursor.execute(
            "INSERT INTO rubric_claims VALUES (?, ?, 99, 'core', 'One more claim.', [1], ?)",
            [f"{question}.c99", question, run_id],
        )
        cursor.execute(
            "INSERT INTO question_evidence VALUES (?, 99, 3000.0, NULL, 1, [99], false, ?)",
            [question, run_id],
        )

    _finish(store, more)
    assert store.rows(sizes, [question])[0] == (old[0] + 1, old[1] + 1, old[2] + 1)
    assert full_refreshes == []
    assert_rollups_hold_their_definitions(store)


def test_a_new_question_recounts_its_film_and_all_films(fresh_fixture, full_refreshes):
    store = fresh_fixture
    types = distributions_view.question_shape(store).value_counts("qtype")

    def add(cursor, run_id):
        cursor.execute(
            "INSERT INTO questions BY NAME SELECT * REPLACE (question_id || '-new' AS question_id,"
            " 'N3' AS qtype, 'Someone new' AS center, ? AS run_id) FROM questions"
            " WHERE question_id = 'q1'",
            [run_id],
        )

    _finish(store, add)  # the counts rollup equals a full refresh
    assert full_refreshes == []
    assert distributions_view.question_shape(store).value_counts("qtype").get("N3", 0) == (
        types.get("N3", 0) + 1
    )
    assert_rollups_hold_their_definitions(store)


def test_slice_answers_counts_the_rows_of_answer_counts(fresh_fixture):
    store = fresh_fixture
    slices = [(JUDGE_LLM,), (JUDGE_LLM, FILM, ("Q3",)), (JUDGE_LLM, None, (), ("subs-qwen",))]
    rolled = [verdicts_view.slice_answers(store, *s) for s in slices]
    assert rolled == [len(verdicts_view.answer_counts(store, *s)) for s in slices]
    assert rolled[0] > 0
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM rollup_state")
    assert [verdicts_view.slice_answers(store, *s) for s in slices] == rolled


def test_a_large_slice_computes_its_metrics_only_when_asked(fresh_fixture, monkeypatch):
    import streamlit as st

    from pipelines import verdict_metrics

    calls = []
    original = verdict_metrics.slice_metrics
    monkeypatch.setattr(
        verdict_metrics, "slice_metrics", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    monkeypatch.setattr(verdicts_view, "LARGE_SLICE_ANSWERS", 1)
    st.cache_data.clear()
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Metrics"})
    assert not at.exception and calls == [] and not at.dataframe
    judged = verdicts_view.slice_answers(fresh_fixture, JUDGE_LLM)
    assert f"This slice holds {judged:,} judged answers" in at.info[0].value
    at.toggle(key="metrics_whole").set_value(True).run()
    assert not at.exception and len(calls) == 2  # by setting, by setting × type
    settings = verdicts_view.answer_counts(fresh_fixture, JUDGE_LLM)["setting_id"].nunique()
    table = at.dataframe[0].value
    assert "Contra" in table.columns and len(table) == settings  # the Table 3 layout, whole


# the Verdicts page's "why" table as it read before: through the store-wide current view
_JUDGEMENTS_THROUGH_THE_VIEW = """
    SELECT c.ord, c.role, c.text AS claim, a.setting_id, s.label AS setting, a.answer_id,
           v.judge_id, j.kind, j.backend, v.verdict, v.rationale
    FROM current_claim_verdicts v JOIN rubric_claims c USING (claim_id)
    JOIN answers a ON a.answer_id = v.answer_id JOIN settings s ON s.setting_id = a.setting_id
    LEFT JOIN judges j ON j.judge_id = v.judge_id
    WHERE c.question_id = ? ORDER BY c.ord, s.label, v.judge_id
"""


def test_claim_judgements_resolve_only_the_questions_verdicts(fresh_fixture):
    store = fresh_fixture
    # a later judge run supersedes one verdict, and a failed one is never current
    _finish(store, lambda c, r: _verdict(c, r, "q1:subs-qwen", "q1.c1", "contradicted"))
    _finish(store, lambda c, r: _verdict(c, r, "q1:subs-qwen", "q1.c2", "omitted"), "failed")
    questions = [row[0] for row in store.rows("SELECT question_id FROM questions ORDER BY 1")]
    for question in questions:
        got = verdicts_view.claim_judgements(store, question)
        want = store.df(_JUDGEMENTS_THROUGH_THE_VIEW, [question])
        pd.testing.assert_frame_equal(got, want, obj=question)
    q1 = verdicts_view.claim_judgements(store, "q1")
    mine = q1[(q1.answer_id == "q1:subs-qwen") & (q1.judge_id == JUDGE_LLM)]
    assert dict(zip(mine["ord"], mine["verdict"]))[1] == "contradicted"


def _verdict(cursor, run_id, answer, claim, verdict):
    cursor.execute(
        "INSERT INTO claim_verdicts VALUES (?, ?, ?, ?, ?, 'test')",
        [run_id, JUDGE_LLM, answer, claim, verdict],
    )
