"""AppTest: the Overview page links into each explorer page with the film / type filters."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.support.app_fixtures import build_app_fixture
from tests.support.paths import REPO_ROOT


def test_overview_links_carry_filters(store):
    build_app_fixture(store)
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    links = [
        (link.proto.label, link.proto.page, link.proto.query_string, link.proto.disabled)
        for link in at.get("page_link")
    ]
    # the film with the most questions is picked first, every page enabled for it
    assert links[:5] == [
        ("Film", "film", "film=lighthouse", False),
        ("Beliefs", "beliefs", "film=lighthouse", False),
        ("Questions", "questions", "film=lighthouse", False),
        ("Verdicts", "verdicts", "film=lighthouse", False),
        ("PlotTree", "plottree", "film=lighthouse", False),
    ]
    assert ("Q3", "questions", "qtype=Q3", False) in links
    assert ("Failed runs", "runs", "status=failed", False) in links
    # every film can be picked; the ToM story: beliefs yes, no questions and no tree
    picker = at.selectbox(key="explore_film")
    assert picker.options == [
        "The Lighthouse Keeper · film · 3 questions · 9 beliefs",
        "Marble story · story · 0 questions · 1 beliefs",
    ]
    picker.set_value("tom-story-1").run()
    assert not at.exception
    story = {
        link.proto.label: link.proto.disabled
        for link in at.get("page_link")
        if link.proto.query_string == "film=tom-story-1"
    }
    assert story == {
        "Film": False,
        "Beliefs": False,
        "Questions": True,
        "Verdicts": True,
        "PlotTree": True,
    }
