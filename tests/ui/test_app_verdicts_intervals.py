"""Verdicts → Metrics: an interval of no width says why (one question, or every question
scoring the same) instead of printing "[100.0, 100.0]", and no cell reads None or nan."""

from __future__ import annotations

import re

import pytest

from tests.support.app_fixture_data import JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT
from viz.verdicts import ZERO_WIDTH_NOTE

ZERO_WIDTH = re.compile(r"\[(-?[\d.]+), \1\]")  # "[100.0, 100.0]"


@pytest.fixture
def fixture_store(store):
    return build_app_fixture(store)


def test_zero_width_intervals_say_why(fixture_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Metrics"})
    assert not at.exception
    by_setting = at.dataframe[0].value
    by_type = at.dataframe[1].value
    screenplay = by_setting.set_index("setting").loc["Screenplay / Qwen3.6"]
    # precision 1, 1, 1 and contradiction 0, 0, 0 over three questions: every resample equal
    assert screenplay["Prec"] == "100.0 (all equal)"
    assert screenplay["Contra"] == "0.0 (all equal)"
    assert screenplay["Resp"] == "100.0 (all equal)"
    assert screenplay["F1"] == "88.9 [66.7, 100.0]"  # a real interval stays as it was
    # by type, each setting answered one question of each type
    assert by_type.set_index("setting").loc["Screenplay / Qwen3.6"].to_dict() == {
        "Q1": "66.7 (n=1)",
        "Q3": "100.0 (n=1)",
        "N2": "100.0 (n=1)",
    }
    assert ZERO_WIDTH_NOTE in [c.value for c in at.caption]  # what "(n=1)" and "(all equal)" mean
    for table in (by_setting, by_type):
        cells = table.astype(str).to_numpy().ravel().tolist()
        assert not [c for c in cells if c in ("None", "nan", "NaN", "<NA>")]
        assert not [c for c in cells if ZERO_WIDTH.search(c)]
