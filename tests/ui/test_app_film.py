"""AppTest: the Film page shows the fixture film's scenes, presence and scene reader."""

from __future__ import annotations

from tests.support.apptest_pages import figures, metrics, run_page, traces
from tests.support.paths import REPO_ROOT
from viz.film import presence_counts


def test_film_page_shows_timeline_presence_and_reader(fixture_store):
    at = run_page(REPO_ROOT, "film_page", {"film": "lighthouse", "scene": "3"})
    assert not at.exception
    assert metrics(at) == {"Runtime": "1:00:00", "Scenes": "6", "Characters": "3", "Questions": "3"}
    specs = figures(at)
    timeline = traces(specs["scene_timeline"])
    # 4 scenes matched to subtitles, 2 interpolated (fixture SCENES)
    assert (
        list(timeline["matched"].base) == [0, 5, 25, 50] and len(timeline["interpolated"].base) == 2
    )
    presence = presence_counts(specs["presence_grid"])
    assert presence == {
        "on screen": 13,
        "offscreen aware": 1,
        "offscreen unaware": 1,
        "absent unmentioned": 3,
    }
    # the reader draws only its open tab: Lines first, the others when opened
    assert len(at.dataframe) == 1
    lines = at.dataframe[0].value
    assert list(lines["text"]) == ["Wind batters the lamp room.", "Ann speaks in scene 3."]
    assert not any("No video registered" in caption.value for caption in at.caption)
    at.session_state["reader_tab"] = "Events"
    at.run()
    assert list(at.dataframe[0].value["witnesses"]) == ["Ann, Cara"] and len(at.dataframe) == 1
    at.session_state["reader_tab"] = "Subtitles"
    at.run()
    assert list(at.dataframe[0].value["start_s"]) == [1510.0]
    at.session_state["reader_tab"] = "Frames"
    at.run()
    assert not at.dataframe
    assert any("No video registered" in caption.value for caption in at.caption)


def test_film_page_restores_scene_from_url_and_changes_with_it(fixture_store):
    at = run_page(REPO_ROOT, "film_page", {"film": "lighthouse", "scene": "5"})
    assert at.selectbox(key="scene").value == "5"
    assert list(at.dataframe[0].value["text"])[1] == "Cara speaks in scene 5."
    at.selectbox(key="scene").set_value("0").run()
    # bound to the URL (bind="query-params"): the first scene is the default, so no parameter
    assert "scene" not in at.query_params
    assert list(at.dataframe[0].value["text"])[1] == "Ann speaks in scene 0."
    at.selectbox(key="scene").set_value("3").run()
    # a scene other than the default is in the URL, as its label, and a copy reopens it
    assert at.query_params["scene"].startswith("S3 · ")
    shared = run_page(REPO_ROOT, "film_page", dict(at.query_params))
    assert shared.selectbox(key="scene").value == "3"


def test_film_page_on_a_story_without_times(fixture_store):
    at = run_page(REPO_ROOT, "film_page", {"film": "tom-story-1"})
    assert not at.exception
    assert metrics(at)["Scenes"] == "3"
    assert any("3 none scene times" in caption.value for caption in at.caption)
