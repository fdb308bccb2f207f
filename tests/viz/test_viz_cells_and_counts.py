"""Formatting that reads honestly: a mean with its 95% interval (words where the interval has no
width or there is no mean), a check outcome in words, count bars one unit wide."""

from __future__ import annotations

import math

from viz.verdicts import interval_cell

NAN = math.nan


def test_a_real_interval_is_printed_in_percent():
    assert interval_cell(0.5, 0.25, 0.75, 8) == "50.0 [25.0, 75.0]"


def test_one_question_has_no_interval():
    assert interval_cell(0.5, 0.5, 0.5, 1) == "50.0 (n=1)"


def test_questions_that_all_score_the_same_have_no_interval():
    assert interval_cell(1.0, 1.0, 1.0, 6) == "100.0 (all equal)"
    assert interval_cell(0.0, 0.0, 0.0, None) == "0.0 (all equal)"


def test_an_interval_narrower_than_the_printed_digit_says_so():
    assert interval_cell(0.8, 0.8, 0.80004, 40) == "80.0 (interval < 0.1)"


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


def test_count_bars_are_one_unit_wide_and_say_what_they_count():
    import pandas as pd

    from viz.distributions import count_bars

    # 14 films with one center character, one with 24: two values far apart
    bars = count_bars(pd.Series({1: 14, 24: 1}), "Centers", "centers", y_label="films")
    (trace,) = bars.data
    assert list(trace.x) == [1, 24] and trace.width == 0.8  # not 23 units wide from -8
    assert bars.layout.yaxis.title.text == "films"
    types = count_bars(pd.Series({"Q1": 3, "N2": 1}), "Types", "type", ["Q1", "N2"])
    assert types.data[0].width is None and types.layout.yaxis.title.text == "questions"
