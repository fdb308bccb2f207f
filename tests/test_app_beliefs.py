"""AppTest: the Belief timelines page draws the fixture's lanes, revisions and meta-beliefs."""

from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT
from tests.support.app_fixtures import (
    build_app_fixture,
    figures,
    frame,
    metrics,
    run_page,
    traces,
)


@pytest.fixture
def fixture_store(store):
    build_app_fixture(store)
    return store


def test_two_characters_lanes_with_false_revised_rejected_and_meta(fixture_store):
    at = run_page(
        REPO_ROOT,
        "beliefs_page",
        {"film": "lighthouse", "who": ["Ann", "Ben"], "belief": "Ann · F1"},
    )
    assert not at.exception
    assert metrics(at) == {"Beliefs": "8", "False": "2", "Revisions": "2", "Meta-beliefs": "2"}
    lanes = figures(at)["belief_lanes"]
    shapes = [shape for shape in lanes.layout.shapes if shape.type == "rect"]
    assert sum(shape.line.dash == "dash" for shape in shapes) == 2  # F1 (Ann), F2 (Ben)
    assert sum(shape.name == "rejected" for shape in shapes) == 1  # Ann rejects Cara's T1
    assert [a.name for a in lanes.layout.annotations] == [
        "revision:Ann · F1->Ann · B2",
        "revision:Ben · F2->Ben · B3",
    ]
    kinds = {name: len(trace.x) for name, trace in traces(lanes).items()}
    assert kinds == {
        "witnessed": 2,
        "told": 2,
        "inferred": 1,
        "false belief": 1,
        "revised": 2,
        "meta-belief": 2,
    }
    assert list(lanes.layout.yaxis.ticktext) == [
        "Ann · B1",
        "Ann · F1",
        "Ann · B3",
        "Ann · T1",
        "Ann · B2",
        "Ann · meta",
        "Ben · B1",
        "Ben · F2",
        "Ben · B3",
    ]
    # the picked belief: told by Ben, false, revised in scene 4; its basis event and the
    # question whose evidence cites scene 1
    assert any("told by Ben" in m.value and "revised in S4" in m.value for m in at.markdown)
    basis, citing = frame(at, "event_id"), frame(at, "question_id")
    assert list(basis["event_id"]) == ["e_001_1"]
    assert list(citing["question_id"]) == ["q1"]


def test_story_without_times_uses_scene_axis(fixture_store):
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "tom-story-1", "who": ["Sally", "Anne"]})
    assert not at.exception
    lanes = figures(at)["belief_lanes"]
    assert lanes.layout.xaxis.title.text == "scene"
    assert metrics(at)["Meta-beliefs"] == "1"


def test_many_beliefs_are_windowed_by_scene_from_the_url(fixture_store):
    """A screenplay film holds hundreds of beliefs: past 60 rows the page shows a scene window."""
    with fixture_store.transaction() as cursor:
        run_id = cursor.execute("SELECT DISTINCT run_id FROM beliefs").fetchone()[0]
        for n in range(70):
            cursor.execute(
                "INSERT INTO beliefs (film_id, belief_id, holder, scene_index, kind, content, "
                "run_id)"
                " VALUES ('lighthouse', ?, 'Ann', ?, 'inferred', ?, ?)",
                [f"X{n}", n % 6, f"extra belief {n}", run_id],
            )
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": "Ann", "scenes": "4-5"})
    assert not at.exception
    assert at.select_slider(key="scenes").value == (4, 5)
    lanes = figures(at)["belief_lanes"]
    shown = list(lanes.layout.yaxis.ticktext)
    # beliefs forming in scenes 4–5 (B2, X4, X5, X10, ...) and F1, revised in scene 4
    assert {"Ann · B2", "Ann · F1", "Ann · X4", "Ann · X5", "Ann · X11"} <= set(shown)
    assert "Ann · X0" not in shown and "Ann · B1" not in shown
    assert len(shown) == 2 + 22 + 1  # 11 X per scene, + the meta-belief lane (M2)


def test_no_belief_is_opened_until_one_is_picked(fixture_store):
    """The first render draws the lanes only; a belief's basis and citing questions (two more
    queries and tables) wait until the reader picks it."""
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": ["Ann", "Ben"]})
    assert not at.exception
    assert at.selectbox(key="belief").value.startswith("(none")
    assert not [m for m in at.markdown if m.value == "**Basis events**"]
    assert not any(shape.line.width == 4 for shape in figures(at)["belief_lanes"].layout.shapes)
    at.selectbox(key="belief").set_value("Ann · F1").run()
    assert [m for m in at.markdown if m.value == "**Basis events**"]
