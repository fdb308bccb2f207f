"""Figure 17 (StoryVideoQA §6.2.1): accuracy by bins of D_q, D_a and D_qa, by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from pipelines.mcq.accuracy import accuracy_by_factor_bins


def _frames():
    # Six questions; D_q orders them 0..5, D_a in reverse, D_qa interleaved.
    difficulty = pd.DataFrame(
        {
            "mcq_id": [f"q{i}" for i in range(6)],
            "d_q": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
            "d_a": [0.5, 0.4, 0.3, 0.2, 0.1, 0.0],
            "d_qa": [0.0, 0.5, 0.1, 0.4, 0.2, 0.3],
        }
    )
    # Method m1 answers q0, q1, q2 right; m2 answers q0 and q5 right.
    correct = {"m1": [1, 1, 1, 0, 0, 0], "m2": [1, 0, 0, 0, 0, 1]}
    predictions = pd.DataFrame(
        [
            {"mcq_id": f"q{i}", "method": m, "correct": bool(v)}
            for m, values in correct.items()
            for i, v in enumerate(values)
        ]
    )
    return predictions, difficulty


def test_each_factor_is_binned_on_its_own_with_the_mean_over_methods():
    predictions, difficulty = _frames()
    table = accuracy_by_factor_bins(predictions, difficulty, n_bins=3)
    assert set(table["factor"]) == {"d_q", "d_a", "d_qa"}

    def cell(factor, number, method):
        row = table[(table.factor == factor) & (table.bin == number) & (table.method == method)]
        return float(row["accuracy"].iloc[0])

    # D_q bin 1 = {q0, q1}: m1 2/2, m2 1/2; bin 3 = {q4, q5}: m1 0/2, m2 1/2.
    assert cell("d_q", 1, "m1") == 100.0 and cell("d_q", 1, "m2") == 50.0
    assert cell("d_q", 1, "average") == 75.0 and cell("d_q", 3, "average") == 25.0
    # D_a runs the other way: its bin 1 = {q5, q4}.
    assert cell("d_a", 1, "average") == 25.0 and cell("d_a", 3, "average") == 75.0
    # D_qa bin 1 = {q0, q2} (0.0, 0.1): m1 2/2, m2 1/2.
    assert cell("d_qa", 1, "average") == pytest.approx(75.0)
    ranges = table[(table.factor == "d_qa") & (table.bin == 1)].iloc[0]
    assert (ranges["lo"], ranges["hi"], ranges["n"]) == (0.0, 0.1, 2)


def test_questions_without_predictions_still_count_in_the_bin_size():
    predictions, difficulty = _frames()
    table = accuracy_by_factor_bins(predictions[predictions.mcq_id != "q0"], difficulty, 3)
    first = table[(table.factor == "d_q") & (table.bin == 1) & (table.method == "m1")].iloc[0]
    assert first["n"] == 2 and first["accuracy"] == 100.0
