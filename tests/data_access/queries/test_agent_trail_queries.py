"""The evidence trail's queries, per-setting figures, `storyscope metrics` and exports, on the
gold film with agent trails written through `write_trail` (tests/support/agent_trail_fixture.py)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.queries import agent_trail_view
from data_access.tables.agent_steps import write_trail
from pipelines.cli import app, load_commands
from pipelines.export import export_slice, slice_frame
from pipelines.metrics.trail_table import per_answer_trail, trail_table
from tests.support.agent_trail_fixture import (
    FAST,
    JUDGE,
    N2A,
    N3B,
    ORACLE,
    Q1A,
    answer_id,
    with_agent_trails,
)
from tests.support.gold_film import GOLD_FILM_ID, with_gold_film
from tests.support.store_files import store_copy

load_commands()


@pytest.fixture
def trails(store_path, seeded_template):
    return store_copy(
        seeded_template("agent-trails", lambda s, _: with_agent_trails(s)), store_path
    )


@pytest.fixture
def gold(tmp_path, seeded_template):
    """The gold film alone (no agent settings), in its own file beside `trails`."""
    return store_copy(
        seeded_template("gold-film", lambda s, _: with_gold_film(s)), tmp_path / "gold.duckdb"
    )


def test_evidence_scenes_are_the_cited_scenes_with_their_stored_spans(trails):
    scenes = agent_trail_view.evidence_scenes(trails, N2A)
    assert scenes["scene_index"].tolist() == [1, 6, 16]
    stored = trails.df(
        "SELECT scene_index, start_s, end_s FROM current_scenes WHERE film_id = ?"
        " AND scene_index IN (1, 6, 16) ORDER BY 1",
        [GOLD_FILM_ID],
    )
    assert scenes["start_s"].tolist() == stored["start_s"].tolist()
    assert scenes["end_s"].tolist() == stored["end_s"].tolist()
    assert [list(c) for c in scenes["claim_ords"]] == [[1], [2], [3, 4]]
    assert scenes["is_anchor"].tolist() == [False, False, True]


def test_evidence_without_a_timed_scene_is_its_time_and_uncited_rows_are_left_out(trails):
    with trails.transaction() as cursor:
        cursor.execute(
            "UPDATE question_evidence SET scene_index = NULL WHERE question_id = ? AND ord = 0",
            [N2A],
        )
        cursor.execute(
            "UPDATE question_evidence SET claim_ords = [] WHERE question_id = ? AND ord = 1", [N2A]
        )
    scenes = agent_trail_view.evidence_scenes(trails, N2A)
    time_s = trails.scalar(
        "SELECT time_s FROM question_evidence WHERE question_id = ? AND ord = 0", [N2A]
    )
    assert scenes["start_s"].tolist() == [time_s, 580.70] and scenes["end_s"].iloc[0] == time_s
    assert pd.isna(scenes["scene_index"].iloc[0])


def test_trail_rows_and_steps(trails):
    rows = agent_trail_view.trail_answers(trails).set_index(["setting_id", "question_id"])
    fast = rows.loc[(FAST, N2A)]
    assert fast.outcome == "answered" and fast.answer_id == answer_id(FAST, N2A)
    assert (fast.turns, fast.tool_calls, fast.bad_calls) == (4, 3, 1)
    assert [list(t) for t in fast.touched] == [[60.0, 100.0], [228.66, 240.0]]
    assert [list(s) for s in fast.evidence_spans] == [
        [64.84, 101.58],
        [228.66, 262.43],
        [580.70, 612.29],
    ]
    stopped = rows.loc[(ORACLE, N2A)]
    assert stopped.outcome == "step_limit" and pd.isna(stopped.answer_id)
    assert stopped.failure == "no answer within 8 turns" and len(stopped.touched) == 8
    assert len(agent_trail_view.trail_answers(trails, question_id=Q1A)) == 2
    assert agent_trail_view.trail_answers(trails, film_id="no-such-film").empty
    steps = agent_trail_view.trail_steps(trails, N2A)
    fast_steps = steps[steps.setting_id == FAST]
    assert fast_steps["tool"].tolist() == ["find_clips", "browse_clip", "vqa"]
    assert fast_steps["error"].iloc[2] == "bad arguments: start"
    assert json.loads(fast_steps["arguments"].iloc[0]) == {"query": "Hale Inn"}


def test_agent_settings_list_settings_without_a_trail(trails, gold):
    assert gold.df("SELECT * FROM agent_answers").empty
    assert agent_trail_view.agent_settings(gold).empty and trail_table(gold) == []
    with trails.transaction() as cursor:
        cursor.execute(
            "INSERT INTO settings (setting_id, source, tier, label, run_id)"
            " VALUES ('paper:agent', 'agent', 'oracle', 'Agent (paper)', 'r')"
        )
    listed = agent_trail_view.agent_settings(trails).set_index("setting_id")
    assert listed.loc[FAST, "trail_questions"] == 3 and listed.loc[ORACLE, "trail_questions"] == 2
    assert listed.loc["paper:agent", "trail_questions"] == 0


def test_per_answer_recall_and_per_setting_figures(trails):
    loops = per_answer_trail(trails, JUDGE).set_index(["setting_id", "question_id"])
    # claims asserted: N2-a {1, 2} of core {2, 3, 4}; N3-b {2} of core {1, 3, 4}; Q1-a all core
    assert loops.loc[(FAST, N2A), "recall"] == pytest.approx(1 / 3)
    assert loops.loc[(FAST, N3B), "recall"] == 0.0 and loops.loc[(FAST, Q1A), "recall"] == 1.0
    assert math.isnan(loops.loc[(ORACLE, N2A), "recall"])  # no answer
    assert loops.loc[(FAST, N3B), "touched_scenes"] == 1  # 200-211.17 only meets scene 5
    rows = {row["setting"]: row for row in trail_table(trails, JUDGE, resamples=200)}
    fast, oracle = rows[FAST], rows[ORACLE]
    assert fast["touched_share"] == pytest.approx((2 / 3 + 1 / 3 + 1) / 3, abs=1e-6)
    assert fast["touched_recall_rho"] == pytest.approx(1.0) and fast["recall_n"] == 3
    assert (fast["answered"], fast["bad_calls"], fast["tokens"]) == (
        3,
        1,
        pytest.approx(1123.333333),
    )
    assert (oracle["answered"], oracle["step_limit"], oracle["failed"]) == (1, 1, 0)
    assert oracle["turns"] == pytest.approx(5.0) and oracle["touched_recall_rho"] is None


def test_metrics_cli_shows_the_trail(trails, store_path):
    base = ["metrics", "--store", str(store_path), "--judge", JUDGE, "--resamples", "200"]
    text = CliRunner().invoke(app, base)
    assert text.exit_code == 0, text.output
    assert "agents: the evidence trail" in text.output
    trail_part = text.output.split("agents: the evidence trail", 1)[1]
    fast_line = next(line for line in trail_part.splitlines() if line.startswith(FAST + " "))
    assert "0.667 [" in fast_line and "1.00 (n=3)" in fast_line
    payload = json.loads(CliRunner().invoke(app, [*base, "--json"]).output)
    trail = {row["setting"]: row for row in payload["agent_trail"]}
    assert trail[ORACLE]["step_limit"] == 1 and trail[FAST]["tiou"] == pytest.approx(
        (46.50 / 106.94 + trail_tiou_n3b() + trail_tiou_q1a()) / 3, abs=1e-5
    )


def trail_tiou_n3b() -> float:
    # touched 200-211.17 and 380-420 (51.17 s); evidence scenes 5, 10, 11 (17.49 + 33.60 +
    # 21.14 = 72.23 s); shared 385.73-419.33 = 33.60 s
    return 33.60 / (51.17 + 72.23 - 33.60)


def trail_tiou_q1a() -> float:
    # the whole film touched (658.3 s) holds scenes 1, 9, 12 (36.74 + 25.26 + 10.93 s)
    return (36.74 + 25.26 + 10.93) / 658.3


def test_metrics_cli_shows_the_trail_when_nothing_could_be_judged(gold):
    with gold.transaction() as cursor:
        write_trail(
            cursor,
            [
                {
                    "run_id": "r",
                    "setting_id": "agent:tiny",
                    "question_id": N2A,
                    "turn": 0,
                    "call_index": 0,
                    "tool": "no_such_tool",
                    "arguments": {},
                    "intervals": [],
                    "result_chars": 0,
                    "result_text": None,
                    "error": "unknown tool 'no_such_tool'",
                }
            ],
            [
                {
                    "run_id": "r",
                    "setting_id": "agent:tiny",
                    "question_id": N2A,
                    "answer_id": None,
                    "tier": "fast",
                    "outcome": "failed",
                    "turns": 1,
                    "tool_calls": 1,
                    "failure": "the reply was no tool call and no answer",
                }
            ],
        )
        cursor.execute("DELETE FROM claim_verdicts")
    result = CliRunner().invoke(app, ["metrics", "--store", str(gold.path)])
    assert result.exit_code != 0 and "no claim verdicts" in result.output
    line = next(line for line in result.output.splitlines() if line.startswith("agent:tiny"))
    assert " 0.000 (n=1)" in line  # touched nothing (one loop, no interval); its failures
    assert line.split()[-5:-1] == ["0", "0", "1", "1"]  # answered, step limit, failed, bad calls


def test_exports_carry_the_trail(trails, tmp_path):
    loops = slice_frame(trails, "agent-trail", {"setting_id": [FAST]})
    assert len(loops) == 3 and {"touched_share", "tiou", "tokens", "run_id"} <= set(loops.columns)
    settings = slice_frame(trails, "agent-trail-settings").set_index("setting")
    expected = {row["setting"]: row for row in trail_table(trails, None, resamples=1000)}
    assert settings.loc[FAST, "touched_share"] == expected[FAST]["touched_share"]
    assert list(settings.loc[FAST, "tiou_ci"]) == expected[FAST]["tiou_ci"]
    assert settings.loc[ORACLE, "step_limit"] == 1 and settings.loc[FAST, "run_ids"]
    steps = slice_frame(trails, "agent-steps")
    assert len(steps) == 3 + 1 + 1 + 8 + 1
    report = export_slice(trails, "agent-trail", "csv", tmp_path / "trail.csv")
    assert report.rows == 5 and "tiou" in report.columns
