"""AppTest: the Film page, reached with a film that has no scenes (carried over from Belief
timelines or a link), opens on a film that has scenes; picked on the page itself, the empty film
is kept and the page says how to get scenes."""

from __future__ import annotations

import pytest

from tests.support.paths import REPO_ROOT


@pytest.fixture
def fixture_store(fixture_store):
    store = fixture_store
    with store.transaction() as cursor:
        run_id = cursor.execute("SELECT run_id FROM films LIMIT 1").fetchone()[0]
        cursor.execute(
            "INSERT INTO films (film_id, dataset_id, title, kind, runtime_s, run_id)"
            " VALUES ('aaa-no-scenes', 'fixture', 'Aaa No Scenes', 'film', 600, ?)",
            [run_id],
        )
    return store


def _film_page(state: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO_ROOT / "ui" / "film_page.py"), default_timeout=60)
    at.query_params["film"] = "aaa-no-scenes"
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_a_carried_over_film_without_scenes_falls_back(fixture_store):
    at = _film_page({"film": "aaa-no-scenes", "_film_chosen_on": ("beliefs", "aaa-no-scenes")})
    assert not at.exception
    assert at.selectbox(key="film").value == "lighthouse"
    assert any("has no scenes yet: showing" in c.value for c in at.caption)


def test_a_film_without_scenes_picked_here_names_the_commands(fixture_store):
    at = _film_page({"film": "aaa-no-scenes", "_film_chosen_on": ("scenes", "aaa-no-scenes")})
    assert not at.exception
    (info,) = at.info
    assert "`storyscope film ingest --screenplay FILE --subtitles FILE`" in info.value
