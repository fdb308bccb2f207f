"""The question types' legend (LF-VideoQA Table 1 names, §3.2 definitions) beside every list
of type codes, and type filters that name the type, not only its code."""

from __future__ import annotations

import pytest

from data_access.formats.question_types import ALL_TYPES, TYPE_ASKS, TYPE_NAMES, type_label
from tests.support.app_fixture_data import JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT
from ui.type_legend import legend_lines

LEGEND = "Question types Q1–N3 (LF-VideoQA Table 1)"


@pytest.fixture
def fixture_store(store):
    return build_app_fixture(store)


def test_every_type_has_the_papers_name_and_definition():
    assert list(TYPE_NAMES) == list(ALL_TYPES) == list(TYPE_ASKS)
    assert type_label("Q1") == "Q1 · Knowledge split"
    assert type_label("N2") == "N2 · Trust evolution"
    assert type_label("X9") == "X9"
    assert legend_lines(["N2", "Q1"]) == [
        "**Q1** Knowledge split: how several characters' knowledge of the same situation differs",
        "**N2** Trust evolution: how their view of another character changes (across the film)",
    ]
    assert legend_lines([]) == []


def _legend(at) -> str:
    (expander,) = [e for e in at.expander if e.label == LEGEND]
    return "\n".join(m.value for m in expander.markdown)


def test_questions_page_names_its_types(fixture_store):
    at = run_page(REPO_ROOT, "questions_page")
    assert not at.exception
    assert at.multiselect(key="qtype").options == [
        "N2 · Trust evolution",
        "Q1 · Knowledge split",
        "Q3 · False belief",
    ]
    legend = _legend(at)
    assert "- **Q1** Knowledge split: how several characters'" in legend
    assert "- **Q3** False belief: what they take to be the case right before acting" in legend
    assert "- **N2** Trust evolution:" in legend and "**Q2**" not in legend


def test_verdicts_and_question_lab_give_the_legend(fixture_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Metrics"})
    assert not at.exception
    assert at.multiselect(key="qtype").options[0] == "Q1 · Knowledge split"
    assert list(at.dataframe[1].value.columns) == ["setting", "Q1", "Q3", "N2"]
    legend = _legend(at)
    assert "**Q1** Knowledge split" in legend and "**N2** Trust evolution" in legend

    at = run_page(REPO_ROOT, "qlab_page")
    assert not at.exception
    legends = [e for e in at.expander if e.label == LEGEND]
    assert len(legends) == 2  # the checks tab and the analytics tab
    assert "**Q3** False belief" in "\n".join(m.value for m in legends[0].markdown)


def test_diff_and_compare_tables_of_type_codes_give_the_legend(fixture_store):
    for view in ("Diff of two runs", "Compare"):
        at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": view})
        assert not at.exception
        shown = {code for df in at.dataframe if "qtype" in df.value for code in df.value["qtype"]}
        assert shown, view  # the view lists type codes
        legend = _legend(at)
        for code in shown:
            assert f"**{code}** {TYPE_NAMES[code]}" in legend, (view, code)
