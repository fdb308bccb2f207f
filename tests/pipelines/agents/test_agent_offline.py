"""`retrieve-extract-v1`, the offline agent: the same loop and tools as a model, a fixed policy
(search, browse the best clips, answer with the retrieved lines), labelled by its name."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from pipelines.agents.offline import NO_ANSWER, extract_answer, next_reply
from tests.support.gold_film import GOLD_FILM_ID, with_gold_film


@pytest.fixture
def gold_film(store):
    return with_gold_film(store)


def _step(turn, index, tool, text, intervals=(), error=None):
    return {
        "turn": turn,
        "call_index": index,
        "tool": tool,
        "result_text": text,
        "intervals": list(intervals),
        "error": error,
    }


def test_the_policy_searches_then_browses_the_best_clips_then_answers():
    question = "Why does Ruth hide the ledger from Tomas?"
    first = next_reply(question, [])
    assert [c.name for c in first.calls] == ["subtitle_search", "find_clips"]
    assert all(json.loads(c.arguments) == {"query": question} for c in first.calls)
    found = [
        _step(0, 0, "subtitle_search", "header\n[1.0-2.0 s | 0:00:01-0:00:02] Where is it?"),
        _step(0, 1, "find_clips", "header\n...", [(10.0, 20.0), (40.0, 50.0), (70.0, 80.0)]),
    ]
    second = next_reply(question, found)
    assert [c.name for c in second.calls] == [
        "browse_clip",
        "browse_clip",
        "character_presence",
    ]
    assert [json.loads(c.arguments) for c in second.calls] == [
        {"start": 10.0, "end": 20.0},
        {"start": 40.0, "end": 50.0},
        {"start": 10.0, "end": 20.0},
    ]
    browsed = [
        *found,
        _step(
            1, 0, "browse_clip", "header\n[10.0-20.0 s | x] Ruth hides the ledger under a board."
        ),
        _step(1, 1, "browse_clip", "header\n[40.0-50.0 s | x] Tomas sees the warrant card."),
        _step(1, 2, "character_presence", "header\n(nobody)", error="no presence"),
    ]
    third = next_reply(question, browsed)
    assert not third.calls
    assert third.content == "Ruth hides the ledger under a board. Tomas sees the warrant card."


def test_nothing_relevant_found_is_said_so():
    steps = [_step(0, 0, "subtitle_search", "header\n[1.0-2.0 s | x] Good morning.")]
    assert extract_answer("Why does Ruth hide the ledger?", steps) == NO_ANSWER


def test_offline_agent_answers_the_gold_film_with_a_trail_from_the_store(gold_film):
    from pipelines.answer import AnswerOptions, answer_questions

    options = AnswerOptions(setting="agent", tier="regular", backend="offline")
    summary = answer_questions(gold_film, options)
    questions = gold_film.scalar("SELECT count(*) FROM questions WHERE film_id = ?", [GOLD_FILM_ID])
    assert summary["answered"] == questions and summary["failed"] == 0
    setting = gold_film.df("SELECT * FROM settings WHERE source = 'agent'").iloc[0]
    assert setting.answerer == "retrieve-extract-v1" and "offline baseline" in setting.label
    assert setting.setting_id == "storyscope:retrieve-extract-v1:agent-regular:turns12"
    outcomes = gold_film.df("SELECT * FROM agent_answers")
    assert set(outcomes.tool_mode) == {"offline"} and (outcomes.prompt_tokens == 0).all()
    steps = gold_film.df("SELECT * FROM agent_steps")
    assert set(steps.tool) == {"subtitle_search", "find_clips", "browse_clip", "character_presence"}
    # every line of an answer is a line some tool call of its question returned
    answers = gold_film.df("SELECT question_id, text FROM answers WHERE setting_id = ?",
                           [setting.setting_id])  # fmt: skip
    for row in answers.itertuples():
        returned = steps[steps.question_id == row.question_id].result_text
        lines = [re.sub(r"^\[[^\]]*\]\s*", "", x).strip() for t in returned for x in t.splitlines()]
        rest = row.text
        while rest != NO_ANSWER and rest:  # the answer is returned lines, joined in order
            line = max((x for x in lines if x and rest.startswith(x)), key=len)
            rest = rest[len(line) :].lstrip()
    # deterministic: a second run under another name gives the same answers
    again = AnswerOptions(setting="agent", tier="regular", backend="offline", setting_name="again")
    answer_questions(gold_film, again)
    second = gold_film.df("SELECT question_id, text FROM answers WHERE setting_id = 'again'")
    assert sorted(second.itertuples(index=False)) == sorted(answers.itertuples(index=False))


def test_cli_offline_backend_is_for_the_agent_only(store_path):
    from pipelines.cli import app, load_commands

    load_commands()
    result = CliRunner().invoke(
        app,
        ["answer", "--store", str(store_path), "--setting", "subtitles", "--backend", "offline"],
    )
    assert result.exit_code != 0 and "only in the agent setting" in result.output
