"""The fast agent (LF-VideoQA §4.3) on the gold film's questions against a real OpenAI-compatible
server (llama.cpp with SmolLM2-135M, tests/support/llama_server.py), in both tool modes: OpenAI
`tools` as negotiated with this server, and the prompt-level fallback pinned.

A 135M model proves the plumbing, not quality, and may not use the tools at all: what is checked
is that every question ends in a recorded outcome (answered, step limit or failed, with the
reason), every call it made is in the trail, and nothing fails for protocol reasons. The counts
(questions answered, tool calls, bad calls) are written to test-artifacts/agent_real_server.json,
labelled as a plumbing check.
"""

from __future__ import annotations

import json

import pytest

from tests.support.gold_film import GOLD_FILM_ID, with_gold_film
from tests.support.llm_plumbing import check_plumbing, real_config
from tests.support.paths import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.realserver]
QUESTIONS = 3
MAX_TURNS = 2


@pytest.fixture
def gold_film(store):
    return with_gold_film(store)


def test_fast_agent_answers_the_gold_film_through_a_real_server(gold_film, llama_server):
    from pipelines.answer import AnswerOptions, answer_questions

    figures = {}
    for mode in ("auto", "prompt"):
        llm = real_config(llama_server, max_tokens=96, tool_calls=mode).public_dict()
        options = AnswerOptions(
            setting="agent",
            setting_name=f"smollm2-fast-agent-{mode}",
            tier="fast",
            max_turns=MAX_TURNS,
            where={"film_id": [GOLD_FILM_ID]},
            limit=QUESTIONS,
            llm=llm,
        )
        summary = answer_questions(gold_film, options)
        check_plumbing(gold_film, summary["run_id"])
        ended = gold_film.df("SELECT * FROM agent_answers WHERE run_id = ?", [summary["run_id"]])
        # every question ends in a recorded outcome; an unanswered one says why
        assert len(ended) == QUESTIONS
        assert set(ended.outcome) <= {"answered", "step_limit", "failed"}
        assert ended[ended.outcome != "answered"].failure.notna().all()
        assert (ended.turns >= 1).all() and (ended.turns <= MAX_TURNS).all()
        steps = gold_film.df("SELECT * FROM agent_steps WHERE run_id = ?", [summary["run_id"]])
        assert int(ended.tool_calls.sum()) == len(steps)
        figures[mode] = {
            "tool_mode": sorted(ended.tool_mode.dropna().unique().tolist()),
            "answered": int((ended.outcome == "answered").sum()),
            "step_limit": int((ended.outcome == "step_limit").sum()),
            "failed": int((ended.outcome == "failed").sum()),
            "tool_calls": len(steps),
            "bad_calls": int(steps.error.notna().sum()) if len(steps) else 0,
            "tools_called": sorted(steps.tool.unique().tolist()) if len(steps) else [],
        }
    artifacts = REPO_ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    (artifacts / "agent_real_server.json").write_text(
        json.dumps(
            {
                "label": "plumbing check of SmolLM2-135M as a fast-tier agent, not a result",
                "questions": QUESTIONS,
                "max_turns": MAX_TURNS,
                "modes": figures,
            },
            indent=2,
        )
    )
