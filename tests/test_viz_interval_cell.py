"""The Table 3 / Table 4 cell: a mean with its 95% interval, and words where the interval has
no width or there is no mean."""

from __future__ import annotations

import math

from viz.verdicts import interval_cell

NAN = math.nan


def test_a_real_interval_is_printed_in_percent():
    assert interval_cell(0.5, 0.25, 0.75, 8) == "50.0 [25.0, 75.0]"


def test_one_question_has_no_interval():
    assert interval_cell(0.5, 0.5, 0.5, 1) == "50.0 (n=1: no interval)"


def test_questions_that_all_score_the_same_have_no_interval():
    assert interval_cell(1.0, 1.0, 1.0, 6) == "100.0 (all equal: no interval)"
    assert interval_cell(0.0, 0.0, 0.0, None) == "0.0 (all equal: no interval)"


def test_an_interval_narrower_than_the_printed_digit_says_so():
    assert interval_cell(0.8, 0.8, 0.80004, 40) == "80.0 (interval under 0.1 wide)"


def test_no_mean_is_a_dash_and_no_interval_is_the_mean_alone():
    assert interval_cell(NAN, NAN, NAN, 3) == "—"
    assert interval_cell(0.7, NAN, NAN, 3) == "70.0"
    assert interval_cell(None, None, None, 0) == "—"


def test_a_questions_check_outcome_in_words():
    import pandas as pd

    from viz.questions import checks_in_words

    passed = pd.Series([True, False, pd.NA, None], dtype=object)
    assert checks_in_words(passed) == ["passed", "failed", "not checked", "not checked"]
    assert checks_in_words(pd.Series([True, None], dtype="boolean")) == ["passed", "not checked"]
