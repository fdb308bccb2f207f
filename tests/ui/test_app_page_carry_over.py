"""AppTest over the whole app (app.py and st.navigation): a film picked on one page is the film
the next page opens on when the visitor moves through the sidebar.

The Film page and Belief timelines share `?film=` under one session-state key, but their pickers
are two widgets to Streamlit (another label): Belief timelines ignored the Film page's film and
opened on the first film of the list, one with no beliefs: a page opens on the film the
reader came with."""

from __future__ import annotations

import pytest

from tests.support.app_fixtures import FILM
from tests.support.paths import REPO_ROOT


@pytest.fixture
def fixture_store(fixture_store):
    store = fixture_store
    with store.transaction() as cursor:
        run_id = cursor.execute("SELECT run_id FROM films LIMIT 1").fetchone()[0]
        # first in the picker's order, with neither scenes nor beliefs
        cursor.execute(
            "INSERT INTO films (film_id, dataset_id, title, kind, runtime_s, run_id)"
            " VALUES ('aaa-empty', 'fixture', 'Aaa Empty', 'film', 600, ?)",
            [run_id],
        )
    return store


def test_belief_timelines_keeps_the_film_the_film_page_showed(fixture_store):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("ui/film_page.py").run()
    assert at.selectbox(key="film").value == FILM
    at.switch_page("ui/beliefs_page.py").run()
    assert not at.exception
    assert at.selectbox(key="film").value == FILM
    assert not any("No belief records" in info.value for info in at.info)
