"""AppTest: Verdicts shows an agent answer's evidence trail beside its claim verdicts, failed
loops and bad calls as they were, the per-setting trail figures and the touched-recall scatter;
and nothing of it on a store without agent settings."""

from __future__ import annotations

import pytest

from pipelines.metrics.trail_table import READINGS
from tests.support.agent_trail_fixture import (
    FAST,
    HOSTILE,
    JUDGE,
    N2A,
    N3B,
    ORACLE,
    with_agent_trails,
)
from tests.support.apptest_pages import figures, frame, run_page, traces
from tests.support.gold_film import with_gold_film
from tests.support.paths import REPO_ROOT
from tests.support.store_files import store_copy


@pytest.fixture
def trails(store_path, seeded_template):
    return store_copy(
        seeded_template("agent-trails", lambda s, _: with_agent_trails(s)), store_path
    )


def _page(params: dict):
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE, **params}, timeout=120)
    assert not at.exception
    return at


def test_a_trail_beside_the_claim_verdicts(trails):
    at = _page({"q": N3B})
    (expander,) = [e for e in at.expander if e.label.startswith("Trail:")]
    assert "answered" in expander.label and "<b>" not in expander.label  # label shown as text
    timeline = figures(at)["agent_trail_0"]
    lanes = traces(timeline)
    assert len(lanes["evidence scene, touched"].x) == 1  # scene 10
    assert len(lanes["evidence scene, never touched"].x) == 2  # scenes 5 (met, not overlapped), 11
    claims = frame(at, "reading", "verdict")
    assert claims.set_index("ord")["reading"].to_dict() == {
        1: READINGS["never looked"],
        2: READINGS["asserted"],
        3: READINGS["seen"],
        4: READINGS["never looked"],
    }
    calls = frame(at, "tool", "result_text")
    assert calls["result_text"].iloc[0] == f"subtitle_search result {HOSTILE}"  # text, as stored
    assert calls["intervals"].iloc[0] == "200.0–211.2 s; 380.0–420.0 s"


def test_failures_are_shown(trails):
    at = _page({"q": N2A})
    labels = [e.label for e in at.expander if e.label.startswith("Trail:")]
    assert len(labels) == 2 and any("step limit" in label for label in labels)
    assert any("no answer within 8 turns" in w.value for w in at.warning)
    assert any("ended without one" in c.value for c in at.caption)
    calls = [df.value for df in at.dataframe if "error" in df.value.columns]
    errors = [e for table in calls for e in table["error"] if e != "—"]
    assert errors == ["bad arguments: start"]  # the fast loop's bad vqa call
    timeline = figures(at)["agent_trail_0"]
    marks = [t for t in timeline.data if t.type == "scatter" and t.marker.symbol == "x"]
    assert len(marks) == 1  # the failed call, which touched nothing


def test_per_setting_figures_and_scatter(trails):
    at = _page({"view": "Metrics"})
    table = frame(at, "evidence touched (%)", "tIoU (%)").set_index("tier")
    assert table.loc["fast", "evidence touched (%)"].startswith("66.7 [")
    assert (table.loc["oracle", "answered"], table.loc["oracle", "step limit"]) == (1, 1)
    assert table.loc["fast", "bad tool calls"] == 1
    assert table.loc["fast", "ρ touched~recall"] == "1.00 (n=3)"
    scatter = figures(at)["agent_touched_recall"]
    points = {trace.name: len(trace.x) for trace in scatter.data}
    assert sorted(points.values()) == [1, 3]  # oracle's step-limit loop has no recall
    assert all("<b>" not in name for name in points)  # labels escaped in the figure
    assert FAST not in points and ORACLE not in points  # drawn under their labels


def test_nothing_without_agent_settings(store):
    with_gold_film(store)
    for params in ({"view": "Metrics", "judge": "gold"}, {"judge": "gold"}):
        at = run_page(REPO_ROOT, "verdicts_page", params, timeout=120)
        assert not at.exception
        assert not [key for key in figures(at) if key.startswith("agent")]
        assert not [e for e in at.expander if e.label.startswith("Trail:")]
        assert not [m for m in at.markdown if "Agent" in m.value]


def test_the_trail_follows_the_settings_and_types_chosen(trails):
    at = _page({"view": "Metrics", "setting": [ORACLE]})
    table = frame(at, "evidence touched (%)", "tIoU (%)")
    assert table["tier"].tolist() == ["oracle"]
    at = _page({"view": "Metrics", "qtype": ["N3"]})  # fast's N3-b only
    table = frame(at, "evidence touched (%)", "tIoU (%)")
    assert table["tier"].tolist() == ["fast"] and table["questions"].tolist() == [1]
    at = _page({"q": N2A, "setting": [FAST]})
    labels = [e.label for e in at.expander if e.label.startswith("Trail:")]
    assert len(labels) == 1 and "fast" in labels[0]


def test_a_judge_that_graded_no_agent_answer_says_so_instead_of_an_empty_scatter(trails):
    # the gold judge labels the gold film's own answers, never an agent's
    at = _page({"view": "Metrics", "judge": "gold"})
    assert frame(at, "evidence touched (%)", "tIoU (%)")["tier"].tolist()  # the table stays
    assert "agent_touched_recall" not in figures(at)
    assert any("no agent answer here is judged by gold" in c.value for c in at.caption)
