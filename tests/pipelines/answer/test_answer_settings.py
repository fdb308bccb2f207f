"""The LF-VideoQA settings (§4): one definition per setting, the budget rule, and answering
through the gateway (`storyscope answer`) against the scripted server, which checks what it
was sent."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pipelines.settings.budget import covered_ranges, evenly_spaced, thin_evenly
from tests.support.gold_film import with_gold_film

FILM = "the-keepers-ledger"


def test_evenly_spaced_spans_the_whole_sequence():
    kept = evenly_spaced(100, 0.1)
    assert len(kept) == 10
    assert kept[0] < 10 and kept[-1] >= 90  # both ends of the film are represented
    gaps = {b - a for a, b in zip(kept, kept[1:])}
    assert gaps == {10}


def test_thinning_keeps_everything_that_fits_and_thins_evenly_otherwise():
    costs = [10] * 50
    assert thin_evenly(costs, [False] * 50, 500) == list(range(50))
    kept = thin_evenly(costs, [False] * 50, 200)
    assert sum(costs[i] for i in kept) <= 200 and len(kept) == 20
    assert kept[0] <= 2 and kept[-1] >= 47
    # structural units (scene headings) are kept first while they fit
    structural = [i % 10 == 0 for i in range(50)]
    kept = thin_evenly(costs, structural, 200)
    assert {0, 10, 20, 30, 40} <= set(kept) and sum(costs[i] for i in kept) <= 200
    assert thin_evenly(costs, [False] * 50, 0) == []


def test_covered_ranges_join_runs_of_consecutive_kept_units():
    spans = [(i * 10.0, i * 10.0 + 10.0) for i in range(6)]
    assert covered_ranges(spans, [0, 1, 2, 4]) == [[0.0, 30.0], [40.0, 50.0]]
    assert covered_ranges([(None, None), (5.0, 6.0)], [0, 1]) == [[5.0, 6.0]]


@pytest.fixture
def gold_film(store):
    """The sample film (ingested as a user would) with its hand-made gold questions."""
    return with_gold_film(store)


def _questions(store, n=None):
    from data_access.queries.task_questions import open_ended_questions

    return open_ended_questions(store, {"film_id": [FILM]}, n).to_dict("records")


def _builder(store, source, **options):
    from pipelines.settings import InputBuilder, SettingOptions, get_setting

    return InputBuilder(store, get_setting(source), SettingOptions(**options))


def test_every_setting_of_the_paper_is_registered():
    from pipelines.settings import SETTINGS, setting_names

    assert [s for s in setting_names() if SETTINGS[s].agent] == ["agent"]
    assert [s for s in setting_names() if not SETTINGS[s].agent] == [
        "question-only",
        "screenplay",
        "subtitles",
        "captions",
        "captions+subtitles",
        "video",
        "video+subtitles",
    ]


def test_screenplay_setting_gives_the_whole_parsed_screenplay_when_it_fits(gold_film):
    from data_access.queries.film_context import screenplay_lines

    question = _questions(gold_film, 1)[0]
    given = _builder(gold_film, "screenplay", context_tokens=100_000).build(question)
    lines = screenplay_lines(gold_film, FILM)
    record = given.record
    assert record["units_kept"] == record["units_total"] == len(lines) + lines.scene_index.nunique()
    assert record["cut_rule"] is None
    for text in lines.text.head(5):
        assert " ".join(text.split())[:40] in " ".join(given.film_text.split())
    assert given.film_text.count("INT.") + given.film_text.count("EXT.") >= 19  # every heading


def test_a_small_window_thins_the_film_evenly_and_the_same_for_every_question(gold_film):
    questions = _questions(gold_film)
    builder = _builder(gold_film, "subtitles", context_tokens=1200, answer_tokens=200)
    first, second = builder.build(questions[0]), builder.build(questions[-1])
    assert first.record["cut_rule"] == "even-thinning-v1"
    assert first.record["units_kept"] < first.record["units_total"]
    assert first.record["est_tokens"] <= 1200 - 200
    # the cut never looks at the question: two questions with different evidence see one film
    assert first.film_text == second.film_text
    covered = first.record["covered"]
    full = _builder(gold_film, "subtitles", context_tokens=100_000).build(questions[0])
    start, end = full.record["covered"][0][0], full.record["covered"][-1][1]
    # what is kept spans the whole film (both ends), at a lower density
    assert covered[0][0] - start < 0.15 * (end - start)
    assert end - covered[-1][1] < 0.15 * (end - start)


def test_question_only_gives_no_film(gold_film):
    from pipelines.settings import openai_messages

    question = _questions(gold_film, 1)[0]
    given = _builder(gold_film, "question-only").build(question)
    messages = openai_messages(given)
    assert given.record["units_total"] == 0 and given.record["budget_tokens"] is None
    assert messages[-1]["content"].endswith(f"Question: {question['text']}")
    assert "Hale Inn" not in messages[-1]["content"].split("Question:")[0]


def test_settings_that_need_what_the_film_lacks_say_what_to_run(gold_film):
    from pipelines.settings import SettingUnavailable

    question = _questions(gold_film, 1)[0]
    with pytest.raises(SettingUnavailable, match="storyscope film video"):
        _builder(gold_film, "video").build(question)


def _answer_server(fake_llm):
    return fake_llm(lambda body, n: f"Answer {n}: she knows the ledger was hidden.")


def test_answer_writes_ordinary_answers_with_what_the_model_was_given(gold_film, fake_llm):
    from data_access.queries.answer_inputs import inputs_of_setting
    from pipelines.answer import AnswerOptions, answer_questions, dry_run

    server = _answer_server(fake_llm)
    llm = fake_llm.config(server).public_dict()
    options = AnswerOptions(
        setting="subtitles",
        where={"film_id": [FILM]},
        limit=3,
        context={"context_tokens": 2000, "answer_tokens": 100},
        llm=llm,
    )
    before = gold_film.df("SELECT count(*) AS n FROM answers").n[0]
    plan = dry_run(gold_film, options)
    assert plan["calls"] == 3 and plan["cut"] == 3 and not server.log.bodies
    assert gold_film.df("SELECT count(*) AS n FROM answers").n[0] == before  # wrote nothing

    summary = answer_questions(gold_film, options)
    assert summary["answered"] == 3 and summary["failed"] == 0
    sent = server.log.bodies
    assert len(sent) == 3
    for body in sent:
        system, user = body["messages"]
        assert system["role"] == "system" and "believes" in system["content"]
        assert user["content"].startswith("Film: The Keeper's Ledger (2026)")
        assert "[00:" in user["content"]  # time-stamped subtitle cues
        assert body["max_tokens"] == 100 and "response_format" not in body
    given = inputs_of_setting(gold_film, summary["setting_id"])
    assert len(given) == 3 and given.answer_id.notna().all()
    assert (given.est_tokens <= 1900).all() and (given.units_kept < given.units_total).all()
    setting = gold_film.df(
        "SELECT * FROM settings WHERE setting_id = ?", [summary["setting_id"]]
    ).iloc[0]
    assert setting.source == "subtitles" and setting.answerer == "fake-model"

    again = answer_questions(gold_film, options)  # a rerun resumes: nothing left to answer
    assert again["answered"] == 0 and again["skipped"] == 3 and len(server.log.bodies) == 3


def test_answers_are_judged_and_measured_like_any_other(gold_film, fake_llm):
    from pipelines.answer import AnswerOptions, answer_questions
    from pipelines.judge import JudgeOptions, run_judge

    server = _answer_server(fake_llm)
    summary = answer_questions(
        gold_film,
        AnswerOptions(setting="question-only", limit=2, llm=fake_llm.config(server).public_dict()),
    )
    judged = run_judge(
        gold_film, JudgeOptions(backend="lexical", where={"settings": [summary["setting_id"]]})
    )
    assert judged["done"] == 2
    verdicts = gold_film.df(
        "SELECT count(*) AS n FROM claim_verdicts v JOIN answers a USING (answer_id)"
        " WHERE a.setting_id = ?",
        [summary["setting_id"]],
    )
    assert verdicts.n[0] > 0


def test_a_failing_endpoint_keeps_what_was_sent_and_no_answer(gold_film, fake_llm):
    from data_access.queries.answer_inputs import inputs_of_setting
    from pipelines.answer import AnswerOptions, answer_questions
    from tests.support.fake_llm import FakeReply

    server = fake_llm(lambda body, n: FakeReply(status=500, content="boom"))
    summary = answer_questions(
        gold_film,
        AnswerOptions(setting="screenplay", limit=1, llm=fake_llm.config(server).public_dict()),
    )
    assert summary["answered"] == 0 and summary["failed"] == 1
    given = inputs_of_setting(gold_film, summary["setting_id"])
    assert len(given) == 1 and given.answer_id.isna().all() and given.units_kept[0] > 0


def test_cli_answer_dry_run_and_run(gold_film, store_path, fake_llm, monkeypatch):
    from pipelines.cli import app, load_commands

    load_commands()
    server = _answer_server(fake_llm)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test")
    common = [
        "answer", "--store", str(store_path), "--setting", "screenplay",
        "--base-url", server.base_url, "--model", "fake-model", "--limit", "2",
        "--context-tokens", "3000",
    ]  # fmt: skip
    runner = CliRunner()
    planned = runner.invoke(app, [*common, "--dry-run", "--json"])
    assert planned.exit_code == 0, planned.output
    plan = json.loads(planned.output.strip().splitlines()[-1])
    assert plan["calls"] == 2 and plan["setting_id"] == "storyscope:fake-model:screenplay:ctx3000"
    ran = runner.invoke(app, common)
    assert ran.exit_code == 0, ran.output
    assert "answered 2 (0 cut at --answer-tokens), failed 0" in ran.output
    unknown = runner.invoke(app, ["answer", "--store", str(store_path), "--setting", "radio"])
    assert unknown.exit_code == 2 and "question-only" in unknown.output


def test_a_reply_cut_at_max_tokens_is_kept_as_the_answer_and_marked(gold_film, fake_llm):
    from pipelines.answer import AnswerOptions, answer_questions
    from tests.support.fake_llm import FakeReply

    server = fake_llm(
        lambda body, n: FakeReply(content="Mara knows that the", finish_reason="length")
    )
    options = AnswerOptions(
        setting="question-only", limit=1, llm=fake_llm.config(server).public_dict()
    )
    summary = answer_questions(gold_film, options)
    assert summary["answered"] == 1 and summary["truncated"] == 1 and summary["failed"] == 0
    text = gold_film.scalar(
        "SELECT text FROM answers WHERE setting_id = ?", [summary["setting_id"]]
    )
    assert text == "Mara knows that the"
    # replayed from the cache, the answer is still marked as cut
    again = answer_questions(gold_film, AnswerOptions(**{**options.params(), "setting_name": "x"}))
    assert again["truncated"] == 1 and len(server.log.bodies) == 1
