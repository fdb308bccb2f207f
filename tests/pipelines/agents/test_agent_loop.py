"""The agent loop (LF-VideoQA §4.3) against the scripted server: tool calls with valid and
invalid arguments, a loop that never answers (the step limit), a reply that answers at once,
the prompt-level fallback, cached turns replayed offline and a stopped run resumed; what the
tools returned is checked against the store."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.support.fake_server import Dialect, FakeReply
from tests.support.gold_film import GOLD_FILM_ID, with_gold_film

SEARCH = {"name": "subtitle_search", "arguments": {"query": "ledger"}}
BAD_ARGUMENTS = {"name": "browse_clip", "arguments": {"start": "soon"}}
UNKNOWN = {"name": "rewind_tape", "arguments": {}}


@pytest.fixture
def gold_film(store):
    return with_gold_film(store)


def _options(config, **changes):
    from pipelines.answer import AnswerOptions

    base = {
        "setting": "agent",
        "tier": "fast",
        "where": {"film_id": [GOLD_FILM_ID]},
        "limit": 2,
        "llm": config.public_dict(),
        "max_turns": 4,
    }
    return AnswerOptions(**{**base, **changes})


def _answer(store, config, **changes):
    from pipelines.answer import answer_questions

    return answer_questions(store, _options(config, **changes))


AGENT_ANSWERS = (
    "SELECT a.*, s.tier, s.source FROM answers a JOIN settings s USING (setting_id)"
    " WHERE s.source = 'agent' ORDER BY a.setting_id, a.question_id"
)


def _turn(body) -> int:
    """How many model turns the conversation in `body` has had (tool results seen)."""
    return sum(m["role"] == "assistant" for m in body["messages"])


def test_tool_calls_are_run_recorded_and_answered(gold_film, fake_llm):
    def handler(body, n):
        if _turn(body) == 0:
            return FakeReply(tool_calls=[SEARCH, BAD_ARGUMENTS, UNKNOWN])
        return "The keeper hides the ledger because he fears the audit."

    server = fake_llm(handler)
    summary = _answer(gold_film, fake_llm.config(server))
    assert summary["answered"] == 2 and summary["failed"] == 0
    steps = gold_film.df("SELECT * FROM agent_steps ORDER BY question_id, turn, call_index")
    assert len(steps) == 6  # three calls in each question's first turn
    first = steps[steps.question_id == steps.question_id.iloc[0]]
    assert first.tool.tolist() == ["subtitle_search", "browse_clip", "rewind_tape"]
    search, bad, unknown = first.to_dict("records")
    assert pd.isna(search["error"]) and json.loads(search["arguments"]) == {"query": "ledger"}
    assert "start" in bad["error"] and bad["result_text"].startswith("error:")
    assert "unknown tool 'rewind_tape'" in unknown["error"]
    # What the search returned is the store's own subtitle cues, at their times.
    cues = gold_film.df(
        "SELECT start_s, end_s, text FROM subtitles WHERE film_id = ?", [GOLD_FILM_ID]
    )
    spans = {(round(a, 3), round(b, 3)) for a, b in zip(cues.start_s, cues.end_s)}
    touched = json.loads(search["intervals"])
    assert touched and all((round(a, 3), round(b, 3)) in spans for a, b in touched)
    matching = cues[cues.text.str.contains("ledger", case=False)]
    assert any(text in search["result_text"] for text in matching.text)
    # The second turn was sent the tool results, tied to their calls.
    second = next(b for b in server.log.bodies if _turn(b) == 1)
    # Two questions run at once, so which request's calls come back first is not fixed;
    # the tie is that each result answers a call of the assistant turn before it, in order.
    asked = next(m for m in second["messages"] if m["role"] == "assistant")
    results = [m for m in second["messages"] if m["role"] == "tool"]
    called = [call["id"] for call in asked["tool_calls"]]
    assert len(called) == 3 and len(set(called)) == 3
    assert [m["tool_call_id"] for m in results] == called
    outcomes = gold_film.df("SELECT * FROM agent_answers ORDER BY question_id")
    assert outcomes.outcome.tolist() == ["answered", "answered"]
    assert outcomes.turns.tolist() == [2, 2] and outcomes.tool_calls.tolist() == [3, 3]
    assert outcomes.tool_mode.tolist() == ["native", "native"]
    assert (outcomes.prompt_tokens > 0).all()
    answers = gold_film.df(AGENT_ANSWERS)
    assert answers.tier.unique().tolist() == ["fast"]
    assert answers.setting_id.unique().tolist() == ["storyscope:fake-model:agent-fast:turns4"]
    assert set(outcomes.answer_id) == set(answers.answer_id)


def test_a_model_that_never_answers_ends_at_the_step_limit(gold_film, fake_llm):
    server = fake_llm(lambda body, n: FakeReply(tool_calls=[SEARCH]))
    summary = _answer(gold_film, fake_llm.config(server), limit=1, max_turns=3)
    assert summary["answered"] == 0 and summary["step_limit"] == 1
    outcome = gold_film.df("SELECT * FROM agent_answers").iloc[0]
    assert outcome.outcome == "step_limit" and outcome.turns == 3 and pd.isna(outcome.answer_id)
    assert "step limit" in outcome.failure
    assert gold_film.df(AGENT_ANSWERS).empty
    assert gold_film.scalar("SELECT count(*) FROM agent_steps") == 3
    # The last turn asked for the answer now.
    assert "last step" in server.log.bodies[-1]["messages"][-1]["content"]
    # A rerun does not ask again: the same turns would end the same way.
    again = _answer(gold_film, fake_llm.config(server), limit=1, max_turns=3)
    assert again["skipped"] == 1 and len(server.log.bodies) == 3


def test_an_answer_at_once_uses_no_tool(gold_film, fake_llm):
    server = fake_llm(lambda body, n: "He never trusted the keeper.")
    summary = _answer(gold_film, fake_llm.config(server), limit=1)
    assert summary["answered"] == 1
    assert gold_film.scalar("SELECT count(*) FROM agent_steps") == 0
    outcome = gold_film.df("SELECT turns, tool_calls FROM agent_answers").iloc[0]
    assert (outcome.turns, outcome.tool_calls) == (1, 0)


def test_a_failing_model_is_a_recorded_failure(gold_film, fake_llm):
    server = fake_llm(lambda body, n: FakeReply(status=500))
    summary = _answer(gold_film, fake_llm.config(server, max_retries=0), limit=1)
    assert summary["failed"] == 1 and summary["answered"] == 0
    outcome = gold_film.df("SELECT outcome, failure FROM agent_answers").iloc[0]
    assert outcome.outcome == "failed" and "model turn 0 failed" in outcome.failure


def test_the_prompt_fallback_runs_the_same_tools(gold_film, fake_llm):
    def handler(body, n):
        if not any(m["role"] == "user" and "Tool result" in m["content"] for m in body["messages"]):
            return json.dumps({"tool_calls": [SEARCH]})
        return json.dumps({"answer": "He fears the audit."})

    server = fake_llm(Dialect("no_tools", handler))
    summary = _answer(gold_film, fake_llm.config(server), limit=1)
    assert summary["answered"] == 1
    outcome = gold_film.df("SELECT tool_mode, turns FROM agent_answers").iloc[0]
    assert (outcome.tool_mode, outcome.turns) == ("prompt", 2)
    assert gold_film.df(AGENT_ANSWERS).text.tolist() == ["He fears the audit."]
    step = gold_film.df("SELECT tool, error FROM agent_steps").iloc[0]
    assert step.tool == "subtitle_search" and pd.isna(step.error)


def test_turns_replay_offline_and_a_stopped_run_resumes(gold_film, fake_llm):
    def handler(body, n):
        return FakeReply(tool_calls=[SEARCH]) if _turn(body) == 0 else "He fears the audit."

    server = fake_llm(handler)
    config = fake_llm.config(server, concurrency=1)
    # A token budget spent by the first turn stops the run before any question ends.
    stopped = _answer(gold_film, config, limit=2, llm={**config.public_dict(), "budget_tokens": 1})
    assert stopped["stopped"] and stopped["answered"] == 0
    assert gold_film.scalar("SELECT count(*) FROM agent_answers") == 0
    sent = len(server.log.bodies)
    resumed = _answer(gold_film, config, limit=2)
    assert resumed["answered"] == 2
    # The resumed run sent only what the first one had not been answered.
    assert len(server.log.bodies) - sent == 4 - sent
    server.stop()
    offline = _answer(gold_film, config, limit=2, setting_name="agent-replayed")
    assert offline["answered"] == 2  # every turn from the cache: the server is gone
    texts = gold_film.df(AGENT_ANSWERS)
    assert len(texts) == 4 and texts.text.nunique() == 1


def test_cli_agent_options_and_dry_run(gold_film, store_path, fake_llm):
    from pipelines.cli import app, load_commands

    load_commands()
    server = fake_llm(lambda body, n: "unused")
    runner = CliRunner()
    base = ["answer", "--setting", "agent", "--store", str(store_path)]
    base += ["--base-url", server.base_url, "--model", "fake-model"]
    bad = runner.invoke(app, [*base, "--tier", "psychic"])
    assert bad.exit_code != 0 and "--tier 'psychic'" in bad.output
    ray = runner.invoke(app, [*base, "--executor", "ray"])
    assert ray.exit_code != 0 and "local executor only" in ray.output
    plan = runner.invoke(app, [*base, "--tier", "oracle", "--max-turns", "5", "--dry-run"])
    assert plan.exit_code == 0, plan.output
    assert "agent (oracle tier)" in plan.output and "at most" in plan.output
    assert server.log.bodies == []  # a dry run sends nothing
