"""Belief timelines at film scale: groups, collapsed unchanged runs, search, per-character
summary (pipelines.beliefs.character_summary), and the page that shows them."""

from __future__ import annotations

import pandas as pd
import pytest

from pipelines.beliefs.character_summary import (
    NOBODY,
    arcs_first,
    belief_groups,
    character_summary,
    false_beliefs,
    group_key,
    search_beliefs,
)
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import figures, run_page
from tests.support.paths import REPO_ROOT


def _beliefs() -> pd.DataFrame:
    rows = [
        # holder, id, kind, content, source, is_false, revises, revised_at, scene, start_s
        ("Ann", "T1", "told", "Ben says the boat comes Friday", "Ben", True, None, 4, 1, 300.0),
        ("Ann", "B2", "inferred", "The boat was cancelled", None, False, "T1", None, 4, 2400.0),
        ("Ann", "T2", "told", "Cara says a storm is coming", "Cara", False, None, None, 2, 900.0),
        ("Ann", "T3", "told", "Ben says the lamp is fixed", "Ben", False, None, None, 3, 1500.0),
        ("Ben", "W1", "witnessed", "Ann broke the lamp", None, False, None, None, 0, 0.0),
    ]
    frame = pd.DataFrame(
        rows,
        columns=[
            "holder",
            "belief_id",
            "kind",
            "content",
            "source_character",
            "is_false",
            "revises",
            "revised_at_scene",
            "scene_index",
            "start_s",
        ],
    )
    return frame.assign(end_s=3600.0, rejected=False, trigger=None)


def test_groups_collapse_unchanged_beliefs_and_count_the_changing_ones():
    groups = belief_groups(_beliefs(), "source", ["Ann", "Ben", "Cara"]).set_index(
        ["holder", "group"]
    )
    ben = groups.loc[("Ann", "Ben")]
    assert (ben["beliefs"], ben["unchanged"], ben["changing"], ben["false"]) == (2, 1, 1, 1)
    assert groups.loc[("Ann", "(inferred)"), "changing"] == 1  # B2 revises T1
    assert groups.loc[("Ann", "Cara"), "unchanged"] == 1
    assert ben["start_s"] == 300.0 and ben["end_s"] == 3600.0


def test_arcs_first_puts_changing_beliefs_before_unchanged_ones_in_film_order():
    beliefs = _beliefs()
    ordered = arcs_first(beliefs)
    # T1 is false, B2 revises it; T2, T3 and W1 never change
    assert list(ordered["belief_id"]) == ["T1", "B2", "T2", "T3", "W1"]
    assert list(arcs_first(beliefs.iloc[[2, 3, 0]]).head(1)["belief_id"]) == ["T1"]
    assert len(ordered) == len(beliefs)


def test_mentions_skip_the_holder_and_fall_back_to_nobody():
    keys = group_key(_beliefs(), "mentions", ["Ann", "Ben", "Cara"])
    assert list(keys) == ["Ben", NOBODY, "Cara", "Ben", "Ann"]
    with pytest.raises(ValueError, match="unknown grouping"):
        group_key(_beliefs(), "colour", [])


def test_summary_counts_false_beliefs_corrections_and_tellers():
    summary = character_summary(_beliefs()).set_index("holder")
    ann = summary.loc["Ann"]
    assert (ann["beliefs"], ann["told"], ann["false"], ann["corrected"]) == (4, 3, 1, 1)
    assert ann["scenes_until_corrected"] == 3.0 and ann["still_false_at_end"] == 0
    assert ann["told_most_by"] == "Ben (2), Cara (1)"
    wrong = false_beliefs(_beliefs())
    assert wrong.to_dict("records")[0] | {} == {
        "holder": "Ann",
        "belief": "T1",
        "content": "Ben says the boat comes Friday",
        "formed_in_scene": 1,
        "formed_at_s": 300.0,
        "told_by": "Ben",
        "corrected_in_scene": 4,
        "corrected_by": "B2",
    }


def test_search_is_literal_and_case_insensitive():
    assert list(search_beliefs(_beliefs(), "LAMP")["belief_id"]) == ["T3", "W1"]
    assert search_beliefs(_beliefs(), "(").empty


def test_page_groups_searches_and_summarises(store):
    build_app_fixture(store)
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": ["Ann", "Ben"]})
    assert not at.exception
    summary = at.dataframe[0].value.set_index("holder")
    assert int(summary.loc["Ann", "false"]) == 1 and int(summary.loc["Ben", "false"]) == 1
    lanes = figures(at)["belief_groups"]
    assert any(name.startswith("Ann · Ben") for name in lanes.layout.yaxis.categoryarray)
    at.text_input(key="find").set_value("boat").run()
    assert not at.exception
    # the search is bound to the URL (`?find=`, bind="query-params"; the browser writes it),
    # and a link holding it opens the page searched
    assert at.text_input(key="find").proto.query_param_key == "find"
    shared = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "find": "boat"})
    assert shared.text_input(key="find").value == "boat"
    summary = at.dataframe[0].value.set_index("holder")
    assert summary["beliefs"].to_dict() == {"Ann": 2, "Ben": 1}  # F1, B2 / B1 mention a boat
    shown = list(figures(at)["belief_lanes"].layout.yaxis.ticktext)
    assert shown == ["Ann · F1", "Ann · B2", "Ann · meta", "Ben · B1"]
    at.selectbox(key="group").set_value("Ann · Ben").run()
    assert list(figures(at)["belief_lanes"].layout.yaxis.ticktext)[0] == "Ann · F1"
