"""The evidence trail of a real agent run: StoryScope's agent loop against the scripted server on
the gold film, judged by the offline lexical judge, read back by the trail's queries, figures,
`storyscope metrics` and the Verdicts panel."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from data_access.queries import agent_trail_view
from pipelines.cli import app, load_commands
from pipelines.metrics.trail import touched_scene_flags
from pipelines.metrics.trail_table import trail_table
from tests.support.apptest_pages import figures, run_page
from tests.support.fake_server import FakeReply
from tests.support.gold_film import GOLD_FILM_ID, with_gold_film
from tests.support.paths import REPO_ROOT

SEARCH = {"name": "subtitle_search", "arguments": {"query": "ledger"}}
BAD_ARGUMENTS = {"name": "browse_clip", "arguments": {"start": "soon"}}


def _turn(body) -> int:
    return sum(m["role"] == "assistant" for m in body["messages"])


@pytest.fixture
def agent_run(store, fake_llm):
    """Three gold questions answered by the fast agent after one search and one bad call, and
    one that never answers (step limit), judged by the lexical judge."""
    from pipelines.answer import AnswerOptions, answer_questions
    from pipelines.judge import JudgeOptions, run_judge

    with_gold_film(store)

    def handler(body, n):
        if _turn(body) == 0:
            return FakeReply(tool_calls=[SEARCH, BAD_ARGUMENTS])
        return "The keeper hides the ledger because he fears the audit."

    base = {"setting": "agent", "tier": "fast", "where": {"film_id": [GOLD_FILM_ID]}}
    server = fake_llm(handler)
    config = fake_llm.config(server).public_dict()
    answer_questions(store, AnswerOptions(**base, limit=3, max_turns=4, llm=config))
    looping = fake_llm(lambda body, n: FakeReply(tool_calls=[SEARCH]))
    looping_config = fake_llm.config(looping).public_dict()
    answer_questions(store, AnswerOptions(**base, limit=1, max_turns=2, llm=looping_config))
    run_judge(store, JudgeOptions(backend="lexical"))
    return store


def test_the_runs_trail_is_read_back_and_shown(agent_run, store_path):
    """One test: the run and its judging (~30 s of CPU) are the expensive part."""
    _read_back(agent_run)
    _shown(agent_run, store_path)


def _read_back(agent_run) -> None:
    loops = agent_trail_view.trail_answers(agent_run)
    assert sorted(loops.outcome) == ["answered"] * 3 + ["step_limit"]
    steps = agent_run.df("SELECT question_id, run_id, intervals FROM agent_steps")
    for loop in loops.itertuples():
        written = steps[(steps.run_id == loop.run_id) & (steps.question_id == loop.question_id)]
        expected = [span for text in written.intervals for span in json.loads(text)]
        assert [list(span) for span in loop.touched] == expected
        # the touched scenes counted from the stored scenes' own spans, independently
        scenes = agent_run.df(
            "SELECT s.start_s, s.end_s FROM question_evidence e JOIN current_scenes s"
            " ON s.film_id = ? AND s.scene_index = e.scene_index WHERE e.question_id = ?"
            " AND len(e.claim_ords) > 0 ORDER BY s.start_s",
            [GOLD_FILM_ID, loop.question_id],
        ).drop_duplicates()
        assert [list(s) for s in loop.evidence_spans] == scenes.values.tolist()
        flags = touched_scene_flags(expected, scenes.values.tolist())
        by_hand = [
            any(min(b, end) - max(a, start) > 0 for a, b in expected)
            for start, end in scenes.values.tolist()
        ]
        assert flags == by_hand
    rows = {row["tier"] + str(row["loops"]): row for row in trail_table(agent_run, "lexical")}
    answered, stopped = rows["fast3"], rows["fast1"]
    assert (answered["answered"], answered["bad_calls"]) == (3, 3)
    assert answered["turns"] == 2.0 and answered["tool_calls"] == 2.0 and answered["tokens"] > 0
    assert 0.0 <= answered["touched_share"] <= 1.0 and 0.0 <= answered["tiou"] <= 1.0
    assert (stopped["step_limit"], stopped["answered"], stopped["turns"]) == (1, 0, 2.0)


def _shown(agent_run, store_path) -> None:
    load_commands()
    result = CliRunner().invoke(
        app, ["metrics", "--store", str(store_path), "--judge", "lexical", "--resamples", "100"]
    )
    assert result.exit_code == 0, result.output
    trail_part = result.output.split("agents: the evidence trail", 1)[1]
    assert sum("agent-fast" in line for line in trail_part.splitlines()) == 2
    question = agent_run.scalar(
        "SELECT question_id FROM agent_answers WHERE outcome = 'answered' ORDER BY 1 LIMIT 1"
    )
    at = run_page(REPO_ROOT, "verdicts_page", {"q": question, "judge": "lexical"}, timeout=120)
    assert not at.exception
    assert [e for e in at.expander if e.label.startswith("Trail:")]
    timeline = figures(at)["agent_trail_0"]
    lanes = set(timeline.layout.yaxis.categoryarray)
    assert {"turn 0·0 subtitle_search", "turn 0·1 browse_clip", "evidence scenes"} <= lanes
