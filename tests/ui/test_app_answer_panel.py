"""AppTest: Verdicts starts an answer job in a setting (dry run first) and shows, under an answer
StoryScope produced, what the model was given."""

from __future__ import annotations

import pytest

from tests.support.apptest_pages import figures, metrics, run_page
from tests.support.gold_film import with_gold_film
from tests.support.paths import REPO_ROOT

FILM = "the-keepers-ledger"


@pytest.fixture
def gold_film(store):
    return with_gold_film(store)


def _server(fake_llm, monkeypatch):
    server = fake_llm(lambda body, n: "She believes the log was taken by Tomas.")
    monkeypatch.setenv("STORYSCOPE_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("STORYSCOPE_LLM_MODEL", "fake-model")
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test")
    return server


def test_answer_this_slice_dry_run_then_job(gold_film, fake_llm, monkeypatch):
    from pipelines.jobs import wait_for

    server = _server(fake_llm, monkeypatch)
    at = run_page(REPO_ROOT, "verdicts_page", {"film": FILM}, timeout=180)
    assert not at.exception
    at.selectbox(key="answer_setting").set_value("subtitles")
    at.number_input(key="answer_ctx").set_value(4096)
    at.button(key="answer_dry_run").click().run()
    shown = metrics(at)
    assert shown["Questions to answer"] == "25" and shown["Calls"] == "25"
    assert not server.log.bodies  # a dry run sends nothing
    at.button(key="answer_start").click().run()
    wait_for(at.session_state["answer_job"]["job_id"], 300)
    at.run()
    assert not at.exception
    assert any("25 answers, 0 failed" in s.value for s in at.success)
    setting = "storyscope:fake-model:subtitles:ctx4096"
    assert gold_film.scalar("SELECT count(*) FROM answers WHERE setting_id = ?", [setting]) == 25


def test_the_page_shows_what_the_model_was_given(gold_film, fake_llm, monkeypatch):
    from pipelines.answer import AnswerOptions, answer_questions

    server = _server(fake_llm, monkeypatch)
    summary = answer_questions(
        gold_film,
        AnswerOptions(
            setting="subtitles",
            limit=1,
            context={"context_tokens": 1500, "answer_tokens": 100},
            llm={"base_url": server.base_url, "model": "fake-model"},
        ),
    )
    question = gold_film.scalar(
        "SELECT question_id FROM answers WHERE setting_id = ?", [summary["setting_id"]]
    )
    at = run_page(REPO_ROOT, "verdicts_page", {"q": question})
    assert not at.exception
    (expander,) = [e for e in at.expander if e.label.startswith("What the model was given")]
    captions = " ".join(c.value for c in expander.caption)
    assert "subtitles" in captions and "cut by even-thinning-v1" in captions
    assert "prompt tokens" in captions and "budget" in captions
    assert "nan" not in captions and "None" not in captions
    shown = figures(at)
    (key,) = [key for key in shown if key.startswith("given_")]
    bars = [trace for trace in shown[key].data if trace.type == "bar"]
    assert len(bars) >= 2  # thinned evenly: several covered ranges across the film


def test_an_answer_whose_film_fitted_says_nothing_was_cut(gold_film, fake_llm, monkeypatch):
    from pipelines.answer import AnswerOptions, answer_questions

    server = _server(fake_llm, monkeypatch)
    summary = answer_questions(
        gold_film,
        AnswerOptions(
            setting="subtitles",
            limit=1,
            context={"context_tokens": 100_000},
            llm={"base_url": server.base_url, "model": "fake-model"},
        ),
    )
    question = gold_film.scalar(
        "SELECT question_id FROM answers WHERE setting_id = ?", [summary["setting_id"]]
    )
    at = run_page(REPO_ROOT, "verdicts_page", {"q": question})
    (expander,) = [e for e in at.expander if e.label.startswith("What the model was given")]
    captions = " ".join(c.value for c in expander.caption)
    assert "nothing cut" in captions and "0 frame(s)" in captions
    assert "nan" not in captions and "None" not in captions
