"""Incremental rollups (data_access.rollups.incremental): after every kind of run that feeds
the rollups — a judge rerun that supersedes verdicts, a failed judge run, verdicts on answers
that are not stored, answers that give those verdicts a film, a new and a repeated prediction
method, a difficulty rerun, a whole dataset import, a finished run later marked failed — the
rollup tables equal a full refresh, row for row, and the incremental path (not a full refresh)
did the work whenever the rollups were current before the run."""

from __future__ import annotations

import pytest

from data_access import rollups
from data_access.importers import import_lfvqa_dir
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.synth import write_synthetic_dataset
from tests.support.app_fixture_data import FILM, JUDGE_LEXICAL, JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture

TABLES = (
    "rollup_answer_verdicts",
    "rollup_agreement_confusions",
    "rollup_agreement_patterns",
    "rollup_mcq_accuracy",
)
FULL_REFRESH = rollups.refresh_rollups  # before the tests count calls to it


def _snapshot(cursor) -> dict[str, list[tuple]]:
    return {t: cursor.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}


def _full_refresh_snapshot(store) -> dict[str, list[tuple]]:
    """What a full refresh would hold now (computed and rolled back)."""
    with store.session() as cursor:
        cursor.execute("BEGIN TRANSACTION")
        try:
            FULL_REFRESH(cursor)
            return _snapshot(cursor)
        finally:
            cursor.execute("ROLLBACK")


@pytest.fixture
def full_refreshes(monkeypatch):
    """Counts the full refreshes `finish_run` falls back to."""
    from data_access.rollups import freshness

    calls = []
    real = freshness.refresh_rollups

    def counting(cursor):
        calls.append(1)
        real(cursor)

    monkeypatch.setattr(freshness, "refresh_rollups", counting)  # where `finish_run` calls it
    return calls


@pytest.fixture
def fresh_fixture(store):
    build_app_fixture(store)
    rollups.refresh(store)
    return store


_HOURS = iter(range(1, 1000))


def _later_run(cursor, step: str, **params) -> str:
    """A run started after every run so far (so its rows become the current ones)."""
    run_id = insert_run(cursor, RunSpec(step=step, backend="test", params=params))
    cursor.execute(
        "UPDATE runs SET started_at = current_timestamp + ? * INTERVAL 1 HOUR WHERE run_id = ?",
        [next(_HOURS), run_id],
    )
    return run_id


def _finish_and_compare(store, write, status: str = "finished") -> dict[str, list[tuple]]:
    """Write a run's rows with `write(cursor, run_id)`, finish it in the same transaction, and
    check the rollups equal a full refresh; returns them."""
    with store.transaction() as cursor:
        run_id = _later_run(cursor, "test.step")
        write(cursor, run_id)
        finish_run(cursor, run_id, status=status)
    assert rollups.rollups_fresh(store)
    with store.session() as cursor:
        incremental = _snapshot(cursor)
    assert incremental == _full_refresh_snapshot(store)
    return incremental


def _verdict(cursor, run_id, judge, answer, claim, verdict):
    cursor.execute(
        "INSERT INTO claim_verdicts VALUES (?, ?, ?, ?, ?, 'test')",
        [run_id, judge, answer, claim, verdict],
    )


def test_judge_rerun_supersedes_and_failed_run_changes_nothing(fresh_fixture, full_refreshes):
    store = fresh_fixture
    with store.session() as cursor:
        before = _snapshot(cursor)
    after = _finish_and_compare(
        store,
        lambda c, r: [
            _verdict(c, r, JUDGE_LEXICAL, "q1:subs-qwen", "q1.c1", "contradicted"),
            _verdict(c, r, JUDGE_LLM, "q2:screenplay-qwen", "q2.c2", "omitted"),
        ],
    )
    assert after != before  # the rerun changed the counts it touched
    row = [r for r in after["rollup_answer_verdicts"] if r[:2] == (JUDGE_LEXICAL, "q1:subs-qwen")]
    assert row and row[0][-3:-1] == (0, 2)  # asserted 1 -> 0, contradicted 1 -> 2
    # a failed run's verdicts are not current: nothing changes
    failed = _finish_and_compare(
        store,
        lambda c, r: _verdict(c, r, JUDGE_LEXICAL, "q3:subs-qwen", "q3.c1", "asserted"),
        status="failed",
    )
    assert failed == after
    assert full_refreshes == []


def test_verdicts_without_a_stored_answer_then_the_answer_arrives(fresh_fixture, full_refreshes):
    store = fresh_fixture
    orphan = "q1:video-model"
    with_orphan = _finish_and_compare(
        store, lambda c, r: _verdict(c, r, JUDGE_LEXICAL, orphan, "q1.c1", "asserted")
    )
    no_film = [r for r in with_orphan["rollup_agreement_patterns"] if r[0] is None]
    assert no_film  # counted in the no-film group

    def answer(cursor, run_id):
        cursor.execute(
            "INSERT INTO settings VALUES ('video-model', 'video', 'M', NULL, NULL, 'Video', ?)",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO answers VALUES (?, 'q1', 'video-model', 'An answer.', ?)", [orphan, run_id]
        )

    with_answer = _finish_and_compare(store, answer)
    assert not [r for r in with_answer["rollup_agreement_patterns"] if r[0] is None]
    assert [r for r in with_answer["rollup_answer_verdicts"] if r[1] == orphan]
    assert full_refreshes == []


def test_prediction_and_difficulty_runs(fresh_fixture, full_refreshes):
    store = fresh_fixture

    def predictions(method, option_sql):
        def write(cursor, run_id):
            cursor.execute(
                f"INSERT INTO mcq_predictions SELECT mcq_id, ?, {option_sql},"
                f" {option_sql} = option,"
                " ? FROM mcq_questions",
                [method, run_id],
            )

        return write

    new_method = _finish_and_compare(store, predictions("always-a", "'A'"))
    assert {r[0] for r in new_method["rollup_mcq_accuracy"]} == {"plottree", "random", "always-a"}
    rerun = _finish_and_compare(store, predictions("random", "'B'"))  # supersedes random's run
    assert rerun != new_method

    def difficulty(cursor, run_id):
        cursor.execute(
            "INSERT INTO mcq_difficulty SELECT mcq_id, d_q, d_a, d_qa, 1 - d, 4 - bin, ?"
            " FROM current_mcq_difficulty",
            [run_id],
        )

    rebinned = _finish_and_compare(store, difficulty)
    assert rebinned["rollup_mcq_accuracy"] != rerun["rollup_mcq_accuracy"]
    assert full_refreshes == []


def test_dataset_import_and_a_finished_run_marked_failed(fresh_fixture, full_refreshes, tmp_path):
    store = fresh_fixture
    write_synthetic_dataset(tmp_path / "synth", scale="small", fmt="jsonl")
    report = import_lfvqa_dir(store, tmp_path / "synth")
    assert report.rows["claim_verdicts"] > 0 and report.rows["mcq_predictions"] > 0
    assert full_refreshes == []  # the import's run was the only change: incremental
    with store.session() as cursor:
        imported = _snapshot(cursor)
    assert imported == _full_refresh_snapshot(store)
    assert {r[6] for r in imported["rollup_answer_verdicts"]} > {FILM}  # the new films are in
    assert len({r[0] for r in imported["rollup_mcq_accuracy"]}) > 2  # and the new methods
    # a finished run turned failed: its rows leave the current views (full refresh path)
    with store.transaction() as cursor:
        finish_run(cursor, report.run_id, status="failed")
    with store.session() as cursor:
        assert _snapshot(cursor) == _full_refresh_snapshot(store)
    assert len(full_refreshes) == 1


def test_stale_rollups_fall_back_to_a_full_refresh(fresh_fixture, full_refreshes):
    store = fresh_fixture
    with store.transaction() as cursor:  # rows written by hand, outside any finishing run
        cursor.execute(
            "INSERT INTO mcq_predictions SELECT mcq_id, 'by-hand', 'A', option = 'A', run_id"
            " FROM mcq_questions"
        )
    assert not rollups.rollups_fresh(store)
    _finish_and_compare(
        store, lambda c, r: _verdict(c, r, JUDGE_LLM, "q1:subs-qwen", "q1.c3", "asserted")
    )
    assert len(full_refreshes) == 1


def test_first_import_into_an_empty_store_fills_the_rollups_from_its_run(
    store, full_refreshes, tmp_path, monkeypatch
):
    """Every rollup input row is the import's: the rollups are filled from its rows directly
    (no touched keys, no resolution of current verdicts) and equal a full refresh."""
    from data_access.rollups import incremental as rollups_incremental

    fills = []
    real_fill = rollups_incremental._fill_from_only_run
    monkeypatch.setattr(
        rollups_incremental, "_fill_from_only_run", lambda c: fills.append(1) or real_fill(c)
    )
    write_synthetic_dataset(tmp_path / "synth", scale="small", fmt="parquet")
    report = import_lfvqa_dir(store, tmp_path / "synth")
    assert fills == [1] and full_refreshes == []
    with store.session() as cursor:
        imported = _snapshot(cursor)
    assert imported == _full_refresh_snapshot(store)
    assert imported["rollup_answer_verdicts"] and imported["rollup_mcq_accuracy"]
    assert imported["rollup_agreement_patterns"]
    # the same run marked failed: its rows are no longer current, so the shortcut must not apply
    with store.transaction() as cursor:
        finish_run(cursor, report.run_id, status="failed")
    assert fills == [1]
    with store.session() as cursor:
        assert _snapshot(cursor) == _full_refresh_snapshot(store)
        assert all(not rows for rows in _snapshot(cursor).values())


def test_a_first_import_with_two_judges_fills_their_confusions(store, full_refreshes, tmp_path):
    """With one judge the first import skips the confusions (there are none); with two it fills
    them from its run like every other rollup."""
    from tests.support.lfvqa_dataset import tiny_tables, write_dataset

    tables = tiny_tables()
    tables["judges"].append({"judge_id": "j2", "kind": "llm", "backend": "scripted"})
    tables["claim_verdicts"] += [
        {**verdict, "judge_id": "j2", "verdict": "contradicted"}
        for verdict in tables["claim_verdicts"]
    ]
    import_lfvqa_dir(store, write_dataset(tmp_path / "two-judges", tables))
    assert full_refreshes == []
    with store.session() as cursor:
        imported = _snapshot(cursor)
    assert imported == _full_refresh_snapshot(store)
    assert sum(row[-1] for row in imported["rollup_agreement_confusions"]) == 2
