"""Eq. 1, the vectorised bootstrap and the metrics table / CLI JSON."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.tables.judging import insert_records, write_verdicts
from data_access.tables.runs import RunSpec, insert_run
from pipelines.cli import app, load_commands
from pipelines.metrics import (
    bootstrap_means,
    metrics_table,
    naive_bootstrap_means,
    per_answer_scores,
    per_question_scores,
    resample_counts,
)
from tests.support.lfvqa_rows import build_slice


def _counts(**columns) -> pd.DataFrame:
    return pd.DataFrame({k: [v] if np.isscalar(v) else v for k, v in columns.items()})


def test_eq1_by_hand():
    # 3 core + 2 context claims; asserts core 1, 2 and context 4; contradicts core 3.
    frame = per_answer_scores(
        _counts(n_claims=5, n_core=3, n_core_asserted=2, n_asserted=3, n_contradicted=1)
    )
    row = frame.iloc[0]
    assert row.recall == pytest.approx(2 / 3)
    assert row.precision == pytest.approx(3 / 4)
    assert row.f1 == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))
    assert row.contradiction == pytest.approx(1 / 5)


def test_eq1_edge_cases_follow_the_documented_choices():
    frame = per_answer_scores(
        _counts(
            n_claims=[4, 2],
            n_core=[2, 0],
            n_core_asserted=[0, 0],
            n_asserted=[0, 1],
            n_contradicted=[0, 0],
        )
    )
    declined, no_core = frame.iloc[0], frame.iloc[1]
    # Default: an answer asserting nothing has no precision, and does not respond.
    assert np.isnan(declined.precision) and declined.f1 == 0.0 and declined.recall == 0.0
    assert declined.responding == 0.0 and no_core.responding == 1.0
    assert np.isnan(no_core.recall) and np.isnan(no_core.f1) and no_core.precision == 1.0
    zero = per_answer_scores(frame.iloc[:1], precision_convention="zero").iloc[0]
    assert zero.precision == 0.0 and zero.f1 == 0.0
    with pytest.raises(ValueError, match="precision convention"):
        per_answer_scores(frame, precision_convention="half")


def test_declined_answers_leave_the_precision_mean_but_lower_responding():
    # Question 1: one answer asserts 1 of 2 committed claims; question 2: the answer declines.
    counts = _counts(
        setting_id=["s", "s"],
        setting_label=["S", "S"],
        question_id=["q1", "q2"],
        qtype=["Q1", "Q1"],
        n_claims=[2, 2],
        n_judged=[2, 2],
        n_core=[2, 2],
        n_core_asserted=[1, 0],
        n_asserted=[1, 0],
        n_contradicted=[1, 0],
    )
    undefined, _ = per_question_scores(counts)
    zero, _ = per_question_scores(counts, precision_convention="zero")
    assert undefined.precision.mean() == pytest.approx(0.5)  # NaN skipped
    assert zero.precision.mean() == pytest.approx(0.25)
    assert undefined.responding.mean() == pytest.approx(0.5)
    assert undefined.f1.tolist() == zero.f1.tolist()


def test_resample_counts_are_multinomial_rows():
    counts = resample_counts(np.random.default_rng(1), 50, 200)
    assert counts.shape == (200, 50) and (counts.sum(axis=1) == 50).all()
    assert abs(counts.mean() - 1.0) < 1e-12


def test_vectorised_bootstrap_equals_explicit_resamples():
    rng = np.random.default_rng(3)
    values = rng.random((40, 3))
    values[5, 2] = np.nan  # one missing score: the ratio estimator skips it
    fast = bootstrap_means(values, 100, np.random.default_rng(7))
    draws = np.random.default_rng(7).integers(0, 40, size=(100, 40))
    explicit = np.array([np.nanmean(values[row], axis=0) for row in draws])
    # float32 products (bootstrap.py): ~1e-6 relative, far below any CI width
    np.testing.assert_allclose(fast, explicit, rtol=1e-5, equal_nan=True)
    naive = naive_bootstrap_means(values[:, :2], 2000, np.random.default_rng(9))
    np.testing.assert_allclose(naive.mean(0), values[:, :2].mean(0), atol=0.01)


def _judge_by_hand(store) -> None:
    """Write verdicts that make screenplay perfect and subtitles all-omitted."""
    sizes = build_slice(store, n_copies=3)
    claims = store.df("SELECT claim_id, question_id FROM rubric_claims")
    rows = []
    for c in claims.itertuples():
        rows.append((f"{c.question_id}-screenplay", c.claim_id, "asserted", None))
        rows.append((f"{c.question_id}-subtitles", c.claim_id, "omitted", None))
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("judge", backend="manual"), status="finished")
        insert_records(cursor, "judges", [{"judge_id": "hand", "kind": "human", "run_id": run_id}])
        write_verdicts(cursor, run_id, "hand", rows)
    assert len(rows) == sizes["verdicts"]


def test_metrics_table_by_setting_and_type(store):
    _judge_by_hand(store)
    table = metrics_table(store, by="setting", resamples=200)
    rows = {r["setting"]: r for r in table.rows}
    perfect, empty = rows["screenplay"], rows["subtitles"]
    assert perfect["n"] == 6 and perfect["recall"] == 1.0 and perfect["f1"] == 1.0
    assert perfect["recall_ci"] == [1.0, 1.0] and perfect["contradiction"] == 0.0
    # Default convention: answers asserting nothing have no precision; Resp shows it.
    assert empty["precision"] is None and empty["recall"] == 0.0 and empty["f1"] == 0.0
    assert empty["responding"] == 0.0 and perfect["responding"] == 1.0
    assert empty["n"] == 6  # still counted as answered
    zero = metrics_table(store, by="setting", resamples=200, precision_convention="zero")
    assert {r["setting"]: r["precision"] for r in zero.rows}["subtitles"] == 0.0
    typed = metrics_table(store, by="setting,type", resamples=200)
    assert {(r["setting"], r["type"]) for r in typed.rows} == {
        (s, t) for s in ("screenplay", "subtitles") for t in ("Q1", "Q4")
    }
    assert all(r["n"] == 3 for r in typed.rows)


def test_metrics_cli_json_layout(store, store_path):
    _judge_by_hand(store)
    load_commands()
    result = CliRunner().invoke(
        app, ["metrics", "--store", str(store_path), "--json", "--by", "setting,type"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert list(payload) == ["precision_convention", "rows"]
    assert payload["precision_convention"] == "undefined"
    assert list(payload["rows"][0]) == [
        "setting",
        "type",
        "n",
        "recall",
        "recall_ci",
        "precision",
        "precision_ci",
        "f1",
        "f1_ci",
        "contradiction",
        "contradiction_ci",
        "responding",
        "responding_ci",
    ]
    bad = CliRunner().invoke(app, ["metrics", "--store", str(store_path), "--judge", "nobody"])
    assert bad.exit_code != 0 and "nobody" in bad.output and "Traceback" not in bad.output


def test_metrics_cli_names_an_interval_of_no_width_for_why(store, store_path):
    # screenplay asserts every claim and subtitles none: every question scores the same, so
    # each resample does too; the table says so instead of printing "[1.00,1.00]"
    _judge_by_hand(store)
    load_commands()
    result = CliRunner().invoke(app, ["metrics", "--store", str(store_path)])
    assert result.exit_code == 0, result.output
    screenplay = next(line for line in result.output.splitlines() if line.startswith("screenplay"))
    assert "1.000 (all equal)" in screenplay and "[1.00,1.00]" not in screenplay
    assert "(all equal): every question scores the same" in result.output


def test_metrics_cli_cells_say_which_kind_of_no_width():
    from pipelines.cli.cmd_metrics import _cell

    assert _cell(0.5, [0.5, 0.5], 1).strip() == "0.500 (n=1)"
    assert _cell(0.5, [0.5, 0.5], 4).strip() == "0.500 (all equal)"
    assert _cell(0.5, [0.25, 0.75], 4) == "0.500 [0.25,0.75]"
    assert len(_cell(0.5, [0.5, 0.5], 1)) == len(_cell(0.5, [0.25, 0.75], 4))  # columns align
