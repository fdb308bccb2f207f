"""Untrusted text renders as text: `ui.safe_text` escapes every markdown/HTML construct, and
the pages route answers, questions, claims, titles and summaries through it."""

from __future__ import annotations

import pytest

from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.hostile import (
    hostile_strings,
    insert_hostile_question,
    live_markup,
    unescape_markdown,
)
from tests.support.paths import REPO_ROOT
from ui.safe_text import inert, plain

URL = "http://127.0.0.1:9"


@pytest.mark.parametrize("name", list(hostile_strings(URL)))
def test_inert_leaves_no_live_markup_and_keeps_the_words(name):
    text = hostile_strings(URL)[name]
    source = inert(text)
    assert live_markup(source) == []
    # every visible character survives except the bidi controls
    expected = text.replace("\u202e", "").replace("\u202c", "").replace("\u2060", "")
    assert unescape_markdown(source).replace("  \n", "\n") == "\n".join(
        line.strip(" ") for line in expected.split("\n")
    )


def test_inert_blocks_indented_code_lists_and_none():
    assert not inert("    indented").startswith(" ")
    assert inert("1. item\n- item\n* item") == "1\\. item  \n\\- item  \n\\* item"
    assert inert(None) == "" and inert(float("nan")) == ""


def test_plain_removes_bidi_overrides_only():
    assert plain("a\u202eb\u2066c\u05e9") == "abc\u05e9"


@pytest.fixture
def hostile_store(store):
    build_app_fixture(store)
    insert_hostile_question(store, URL)
    return store


def _sources(at) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


def test_questions_page_shows_hostile_text_inert(hostile_store):
    at = run_page(REPO_ROOT, "questions_page", {"q": "q1"})
    assert not at.exception
    shown = "\n".join(_sources(at))
    assert "md-image.png" in unescape_markdown(shown)  # the words are there...
    offenders = {s: live_markup(s) for s in _sources(at) if live_markup(s)}
    assert offenders == {}  # ...but nothing in them is live markup


def test_verdicts_answers_show_hostile_text_inert(hostile_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "view": "Claims × settings"})
    assert not at.exception
    answers = [s for s in _sources(at) if "html-image.png" in unescape_markdown(s)]
    assert answers, "the hostile answer is shown"
    for source in answers:
        assert live_markup(source.split("\n\n", 1)[-1]) == []  # chips stay markdown, text inert


def test_overview_and_film_titles_inert(hostile_store):
    from streamlit.testing.v1 import AppTest

    overview = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    overview.run()
    film = run_page(REPO_ROOT, "film_page", {"film": "lighthouse"})
    assert any("the truth" in unescape_markdown(s) for s in _sources(overview))
    for at in (overview, film):
        assert not at.exception
        assert [s for s in _sources(at) if live_markup(s)] == []
