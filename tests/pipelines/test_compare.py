"""Paired comparison of two settings: the bootstrap interval against a naive resampling
loop, the p-values against scipy, and the CLI on a judged slice."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, permutation_test
from typer.testing import CliRunner

from data_access.tables.judging import ensure_judge, write_verdicts
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.cli import app, load_commands
from pipelines.compare import (
    bootstrap_interval,
    compare_settings,
    paired_scores,
    permutation_p,
    sign_test,
)
from tests.support.lfvqa_rows import build_slice

load_commands()


def _naive_interval(diffs: np.ndarray, resamples: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = [diffs[rng.integers(0, len(diffs), len(diffs))].mean() for _ in range(resamples)]
    return tuple(np.percentile(means, [2.5, 97.5]))


def test_bootstrap_interval_matches_a_naive_resampling_loop():
    diffs = np.random.default_rng(3).normal(0.1, 0.3, size=60)
    fast = bootstrap_interval(diffs, 20_000, np.random.default_rng(1))
    naive = _naive_interval(diffs, 20_000, seed=2)
    width = naive[1] - naive[0]
    # independent draws: the two percentile estimates agree to a few % of the width
    assert abs(fast[0] - naive[0]) < 0.05 * width and abs(fast[1] - naive[1]) < 0.05 * width


def _scipy_permutation(diffs: np.ndarray, resamples) -> float:
    zeros = np.zeros_like(diffs)
    result = permutation_test(
        (diffs, zeros),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        random_state=0,
    )
    return float(result.pvalue)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_permutation_p_equals_scipy(seed):
    diffs = np.round(np.random.default_rng(seed).normal(0.15, 0.4, size=12), 2)
    ours, exact = permutation_p(diffs, 1000, np.random.default_rng(0))
    assert exact
    assert ours == pytest.approx(_scipy_permutation(diffs, np.inf), abs=1e-12)


def test_monte_carlo_permutation_p_is_close_to_scipy():
    diffs = np.random.default_rng(5).normal(0.05, 0.3, size=80)
    ours, exact = permutation_p(diffs, 20_000, np.random.default_rng(0))
    assert not exact
    assert ours == pytest.approx(_scipy_permutation(diffs, 20_000), abs=0.015)


def test_sign_test_drops_ties_and_equals_scipy():
    diffs = np.array([0.2, 0.1, 0.0, -0.3, 0.5, 0.4, 0.0, 0.25])
    wins, ties, losses, p = sign_test(diffs)
    assert (wins, ties, losses) == (5, 2, 1)
    assert p == pytest.approx(binomtest(5, 6, 0.5).pvalue)


def _counts(rows) -> pd.DataFrame:
    frame = pd.DataFrame(
        rows, columns=["question_id", "qtype", "setting_id", "n_core_asserted", "n_contradicted"]
    )
    return frame.assign(
        answer_id=frame["question_id"] + "-" + frame["setting_id"],
        setting_label=frame["setting_id"],
        film_id="f",
        n_claims=2,
        n_core=2,
        n_judged=2,
        n_asserted=frame["n_core_asserted"],
    )


def test_only_questions_both_settings_answered_are_paired():
    counts = _counts(
        [
            ("q1", "Q1", "a", 2, 0),
            ("q1", "Q1", "b", 1, 0),
            ("q2", "Q2", "a", 0, 0),
            ("q2", "Q2", "b", 2, 0),
            ("q3", "Q2", "a", 2, 0),  # b did not answer q3
        ]
    )
    pairs = paired_scores(counts, "a", "b")
    assert pairs["question_id"].tolist() == ["q1", "q2"]
    np.testing.assert_allclose(pairs["diff"], [2 / 3 - 1.0, 1.0])
    result = compare_settings(counts, "j", "a", "b", by_type=True, resamples=200)
    assert [r.group for r in result.results] == ["all", "Q1", "Q2"]
    assert (result.results[0].wins, result.results[0].losses) == (1, 1)
    assert result.top_differences(1)["question_id"].tolist() == ["q2"]


def _judged_store(store):
    build_slice(store, n_copies=3)
    items = store.df(
        "SELECT a.answer_id, a.setting_id, c.claim_id FROM answers a JOIN rubric_claims c"
        " USING (question_id)"
    )
    rows = [
        (x.answer_id, x.claim_id, "asserted" if x.setting_id == "screenplay" else "omitted", None)
        for x in items.itertuples()
    ]
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("judge", backend="manual"))
        ensure_judge(cursor, "hand", "lexical", "manual", None, None, run_id)
        write_verdicts(cursor, run_id, "hand", rows)
        finish_run(cursor, run_id)


def test_compare_cli_json(store, store_path):
    _judged_store(store)
    result = CliRunner().invoke(
        app,
        [
            "compare",
            "--judge",
            "hand",
            "--a",
            "Subtitles",
            "--b",
            "screenplay",
            "--by",
            "type",
            "--json",
            "--resamples",
            "500",
            "--store",
            str(store_path),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    overall = report["results"][0]
    assert overall["n"] == 6 and overall["wins"] == 6 and overall["mean_diff"] == 1.0
    assert overall["ci_low"] == 1.0 and overall["ci_high"] == 1.0
    assert overall["sign_p"] == pytest.approx(binomtest(6, 6, 0.5).pvalue)
    assert [r["group"] for r in report["results"]] == ["all", "Q1", "Q4"]
    assert len(report["top_differences"]) == 6


def test_compare_cli_text_and_errors(store, store_path):
    _judged_store(store)
    runner = CliRunner()
    text = runner.invoke(
        app, ["compare", "--a", "subtitles", "--b", "screenplay", "--store", str(store_path)]
    )
    assert text.exit_code == 0, text.output
    assert "W/T/L" in text.output and "6/0/0" in text.output
    bad = runner.invoke(
        app, ["compare", "--a", "subtitles", "--b", "nope", "--store", str(store_path)]
    )
    assert bad.exit_code == 2 and "setting 'nope'" in bad.output
