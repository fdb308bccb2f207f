"""AppTest: the pages' filters are bound to the URL by Streamlit's own `bind="query-params"`
(ui/filters.py), and links made before the binding still open the view they name.

Streamlit writes what a bound widget shows (a picker's label: `?film=The+Lighthouse+(film)`)
and leaves a default value out; links made before, and the app's own links, name the option
itself (`?film=lighthouse&scene=5`)."""

from __future__ import annotations

from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT


def test_the_film_pickers_are_bound_to_the_url(fixture_store):
    at = run_page(REPO_ROOT, "film_page", {"film": "lighthouse"})
    assert not at.exception
    assert at.selectbox(key="film").proto.query_param_key == "film"
    assert at.selectbox(key="scene").proto.query_param_key == "scene"


def test_an_old_link_by_id_and_a_link_by_label_open_the_same_view(fixture_store):
    old = run_page(REPO_ROOT, "film_page", {"film": "lighthouse", "scene": "5"})
    assert not old.exception
    assert (old.selectbox(key="film").value, old.selectbox(key="scene").value) == (
        "lighthouse",
        "5",
    )
    film_label = old.selectbox(key="film").format_func("lighthouse")
    scene_label = old.selectbox(key="scene").format_func("5")
    labelled = run_page(REPO_ROOT, "film_page", {"film": film_label, "scene": scene_label})
    assert not labelled.exception
    assert (labelled.selectbox(key="film").value, labelled.selectbox(key="scene").value) == (
        "lighthouse",
        "5",
    )
    assert not labelled.warning  # neither form is an unknown value


def test_a_link_to_a_value_the_store_lacks_is_named_not_dropped(fixture_store):
    at = run_page(REPO_ROOT, "film_page", {"film": "lighthouse", "scene": "S99 · NOWHERE"})
    assert not at.exception
    assert at.selectbox(key="scene").value == "0"
    assert any("S99 · NOWHERE" in w.value for w in at.warning)
