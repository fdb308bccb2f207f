"""Rollups (data_access.rollups.freshness, migration 620): a refresh leaves every rollup holding the
rows its definition computes live (readers read one definition through
data_access.rollups.source, so they agree by construction), the rollups are refreshed when a run
that feeds them finishes, and readers fall back to the live queries when rows were written
without finishing a run."""

from __future__ import annotations

import pandas as pd

from data_access import rollups
from data_access.queries import distributions_view, verdicts_view
from data_access.tables.runs import RunSpec, finish_run, insert_run
from tests.support.app_fixture_data import FILM, JUDGE_LEXICAL, JUDGE_LLM
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT
from tests.support.rollup_check import assert_rollups_hold_their_definitions

# (query, args) pairs read over the rollups
QUERIES = [
    (verdicts_view.answer_counts, (JUDGE_LEXICAL,)),
    (verdicts_view.answer_counts, (JUDGE_LLM, FILM)),
    (verdicts_view.answer_counts, (JUDGE_LLM, None, ("Q3",), ())),
    (verdicts_view.answer_counts, (JUDGE_LEXICAL, None, (), ("subs-qwen",))),
    (verdicts_view.agreement_confusions, (None,)),
    (verdicts_view.agreement_confusions, (FILM,)),
    (verdicts_view.agreement_confusions, ("no-such-film",)),
    (verdicts_view.agreement_patterns, (None,)),
    (verdicts_view.agreement_patterns, (FILM,)),
    (distributions_view.accuracy_by_bin, ()),
    (distributions_view.accuracy_by_bin, ("golden", "Movie")),
    (distributions_view.accuracy_by_topic, ()),
    (distributions_view.accuracy_by_topic, ("no-such-set", None)),
]


def _results(store) -> list[pd.DataFrame]:
    out = []
    for fn, args in QUERIES:
        frame = fn(store, *args)
        out.append(frame.sort_values(list(frame.columns)).reset_index(drop=True))
    return out


def test_rollups_give_the_live_numbers(fixture_store):
    store = fixture_store
    assert not rollups.rollups_fresh(store)  # fixture rows are written after their runs finish
    live = _results(store)
    assert len(live[0]) == 6 and len(live[4]) > 0 and len(live[9]) > 0  # non-trivial inputs
    rollups.refresh(store)
    assert_rollups_hold_their_definitions(store)


def test_finishing_a_judge_run_refreshes_and_other_runs_keep_fresh(fixture_store):
    store = fixture_store
    rollups.refresh(store)
    with store.transaction() as cursor:
        other = insert_run(cursor, RunSpec(step="generate", backend="template"))
        finish_run(cursor, other)  # feeds no rollup: re-stamped, still fresh
    assert rollups.rollups_fresh(store)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="judge", backend="lexical"))
        # after the fixture's runs, whose start times were moved forward
        cursor.execute(
            "UPDATE runs SET started_at = started_at + INTERVAL 1 HOUR WHERE run_id = ?", [run_id]
        )
        cursor.execute(
            "INSERT INTO claim_verdicts VALUES (?, ?, 'q1:subs-qwen', 'q1.c1', 'contradicted', "
            "'x')",
            [run_id, JUDGE_LEXICAL],
        )
    assert not rollups.rollups_fresh(store)  # a judge mid-run: readers use the live query
    during = _results(store)
    with store.transaction() as cursor:
        finish_run(cursor, run_id)
    assert rollups.rollups_fresh(store)
    after = _results(store)
    before_row = during[0].set_index("answer_id").loc["q1:subs-qwen"]
    after_row = after[0].set_index("answer_id").loc["q1:subs-qwen"]
    # the rerun supersedes claim q1.c1 only (current_claim_verdicts): asserted -> contradicted
    assert after_row["n_judged"] == before_row["n_judged"] == 3
    assert (after_row["n_asserted"], after_row["n_contradicted"]) == (0, 2)
    assert (before_row["n_asserted"], before_row["n_contradicted"]) == (
        1,
        1,
    )  # unfinished run: not current
    assert_rollups_hold_their_definitions(store)


def test_hand_written_rows_make_rollups_stale(fixture_store):
    store = fixture_store
    rollups.refresh(store)
    with store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO mcq_predictions SELECT mcq_id, 'late-method', option, true, run_id"
            " FROM mcq_questions LIMIT 1"
        )
    assert not rollups.rollups_fresh(store)
    assert "late-method" in set(distributions_view.accuracy_by_topic(store)["method"])


def test_verdicts_page_metrics_from_rollups(fixture_store):
    rollups.refresh(fixture_store)
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Metrics"})
    assert not at.exception
    table = at.dataframe[0].value.set_index("setting")
    # the Eq. (1) figures of tests/ui/test_app_verdicts.py, now read through
    # rollup_answer_verdicts
    assert table.loc["Screenplay / Qwen3.6", "F1"].startswith("88.9")
    assert table.loc["Subtitles / Qwen3.6", "F1"].startswith("16.7")


def test_rollups_command_refreshes_stale_rollups(fixture_store, store_path):
    import json

    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands

    load_commands()
    result = CliRunner().invoke(app, ["rollups", "--json", "--store", str(store_path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.strip().splitlines()[-1])["fresh_before"] is False
    assert rollups.rollups_fresh(fixture_store)


def test_lfvqa_import_leaves_rollups_current(store):
    """A new store starts with current (empty) rollups, and an import's run finishes with rows
    the rollups read, so the pages read rollups straight away."""
    from data_access.importers import import_lfvqa_dir

    assert rollups.rollups_fresh(store)
    import_lfvqa_dir(store, REPO_ROOT / "samples" / "lfvqa_paper")
    assert store.scalar("SELECT count(*) FROM answers") > 0
    assert rollups.rollups_fresh(store)
