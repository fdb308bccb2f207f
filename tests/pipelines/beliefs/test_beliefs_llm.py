"""The LLM annotation stages (Tables 18–21) against the scripted local OpenAI-compatible server,
with replies in the tables' formats, small format drift, and malformed replies."""

from __future__ import annotations

import re

import pytest

from data_access.tables import belief_records
from pipelines.beliefs.annotate import Selection, annotate
from pipelines.beliefs.llm import parsers as parsers
from pipelines.beliefs.llm.prompts import STAGES, messages
from tests.support.belief_llm_replies import route
from tests.support.rules_film import FILM
from tests.support.rules_film import fixture_film as fixture_film  # noqa: F401 (a fixture)


@pytest.fixture
def run_llm(fixture_film, fake_llm):  # noqa: F811
    server = fake_llm(route)
    config = fake_llm.config(server, structured="none")

    def go():
        return annotate(fixture_film, FILM, "openai", Selection(0, 2), config=config)

    return go


def test_llm_annotation_end_to_end(fixture_film, run_llm):  # noqa: F811
    # One scripted run, checked stage by stage (each run costs seconds of loopback HTTP).
    result = run_llm()
    _check_rows(fixture_film, result)
    _check_belief_state(fixture_film, result)
    _check_meta_and_issues(fixture_film, result)


def _check_rows(store, result):
    run = (
        store.df(
            "SELECT backend, prompt_version, status, n_failed FROM runs WHERE run_id = ?",
            [result.run_id],
        )
        .iloc[0]
        .to_dict()
    )
    assert run == {
        "backend": "openai",
        "prompt_version": "beliefs-v2",
        "status": "finished",
        "n_failed": 1,
    }
    events = store.df(
        "SELECT event_id, witnesses FROM scene_events WHERE run_id = ? ORDER BY event_id",
        [result.run_id],
    )
    assert list(events["event_id"]) == ["e_000_1", "e_000_2", "e_001_1", "e_001_2"]
    assert sorted(events["witnesses"].iloc[0]) == ["NORA", "SAM"]  # GHOST dropped
    presence = store.df(
        "SELECT character, scene_index, status, witnessed_events FROM presence WHERE run_id = ?",
        [result.run_id],
    )
    by_key = {(r.character, r.scene_index): r for r in presence.itertuples()}
    assert list(by_key[("SAM", 0)].witnessed_events) == ["e_000_1", "e_000_2"]
    assert by_key[("VICTOR", 0)].status == "offscreen_aware"
    assert ("ELLEN", 1) not in by_key  # the malformed reply


def _check_belief_state(fixture_film, result):
    beliefs = belief_records.belief_state_at(fixture_film, FILM, "NORA", 1)
    rows = fixture_film.df(
        "SELECT belief_id, scene_index, kind, content, basis, is_false,"
        " revises, revised_at_scene, source_character, believed FROM beliefs"
        " WHERE holder = 'NORA' AND run_id = ? ORDER BY belief_id",
        [result.run_id],
    )
    tags = {r.belief_id: r for r in rows.itertuples()}
    assert tags["B1"].kind == "told" and tags["B1"].source_character == "SAM"
    assert tags["B2"].kind == "inferred" and list(tags["B2"].basis) == ["e_000_1"]
    assert tags["F1"].kind == "false" and tags["F1"].is_false
    assert tags["F1"].revised_at_scene == 1  # carried to s_001, then revised there
    assert tags["B3"].kind == "revised" and tags["B3"].revises == "F1"
    assert "Sam is on her side" not in set(beliefs["content"])
    assert "Sam is working for Victor" in set(beliefs["content"])


def _check_meta_and_issues(fixture_film, result):
    # Meta-beliefs need a valid basis and a target in the group.
    meta = fixture_film.df(
        "SELECT holder, about, claim, type, source, basis FROM meta_beliefs WHERE run_id = ?",
        [result.run_id],
    )
    assert meta.to_dict("records") == [
        {
            "holder": "SAM",
            "about": "NORA",
            "claim": "the bridge is out",
            "type": "first_order_about_d",
            "source": "c_told_d",
            "basis": ["e_000_1"],
        }
    ]
    issues = belief_records.parse_issues(fixture_film, result.run_id)
    text = " | ".join(issues["issue"])
    assert "no valid basis" in text and "WALDO" in text
    assert "GHOST" in text and "e_009_9" in text and "e_777_1" in text
    assert "call failed" in text  # ELLEN's presence
    calls = fixture_film.df(
        "SELECT status, raw_reply FROM llm_calls WHERE run_id = ? AND status = 'failed'",
        [result.run_id],
    )
    assert calls["raw_reply"].iloc[0].startswith("I am not sure")


def test_rerun_replays_from_cache(fixture_film, run_llm):  # noqa: F811
    first = run_llm()
    second = run_llm()
    assert second.counts == first.counts
    cached = fixture_film.df(
        "SELECT cached, count(*) AS n FROM llm_calls WHERE run_id = ? GROUP BY cached",
        [second.run_id],
    )
    assert set(cached["cached"]) == {True, False}  # only the failed call is re-sent
    assert int(cached.loc[~cached["cached"], "n"].sum()) <= 2


def test_dry_run_counts_calls_without_any(fixture_film):  # noqa: F811
    result = annotate(fixture_film, FILM, "openai", Selection(0, 2), dry_run=True)
    assert result.run_id is None and result.params["calls"] > 0
    assert fixture_film.scalar("SELECT count(*) FROM runs WHERE step = 'beliefs.annotate'") == 0


def test_templates_fill_every_placeholder():
    values = {
        name: "x"
        for name in (
            "scene_id",
            "heading",
            "characters",
            "scene_text",
            "events",
            "character",
            "previous_scene_id",
            "previous_presence",
            "belief_state",
            "presence",
            "witnessed",
            "group",
            "prior_scenes",
            "meta_so_far",
        )
    }
    for stage in STAGES:
        system, user = messages(stage, **values)
        assert "$" not in user["content"] and "OUTPUT" in system["content"].upper()


@pytest.mark.parametrize("text", ["", "Sure! Here you go.", "EVENTS: none really"])
def test_unreadable_event_replies_raise_for_a_retry(text):
    with pytest.raises(ValueError, match="malformed"):
        parsers.parse_events(text, ["A"])


def test_parsers_tolerate_drift():
    assert parsers.parse_events("NO EVENTS.", ["A"]).items == []
    got = parsers.parse_presence("presence: On-Screen\nwitnessed event ids: [e_001_2]", ["e_001_2"])
    assert got.value == {"presence": "on_screen", "witnessed": ["e_001_2"]}
    parsed = parsers.parse_first_order(
        "TOLD:\n1. Proposition: x is y\n   Source: A\n"
        "   Believed: No\nREVISIONS\n- Prior: [B2]\n"
        "Revised to: z\nTrigger: e_003_1"
    )
    assert parsed.value["told"][0]["believed"] is False
    assert parsed.value["revisions"][0]["prior_tag"] == "B2"
    assert any("INFERRED missing" in p for p in parsed.problems)
    assert parsers.parse_meta("NONE", ["A"], set()).items == []


def _faithful_reply(body: dict, number: int) -> str:
    """Replies in the tables' formats built from the prompt itself (for a real screenplay)."""
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    listed = re.search(r"^Listed characters: (.*)$", user, re.M)
    listed = [n.strip() for n in listed.group(1).split(",")] if listed else []
    event_ids = re.findall(r"^(e_\d{3}_\d+):", user, re.M)
    who = re.search(r"^(?:Character|c): (.+)$", user, re.M)
    if "Decompose the scene" in system:
        lines = re.findall(
            r"^- (?:DIRECTION: (.*)|DIALOGUE \| ([^|]+) \| [^|]* \| (.*))$", user, re.M
        )
        blocks = [
            f"EVENT {n}\nDescription: {(d or t)[:80]}\nParticipants: {s.strip() or '(none)'}"
            f"\nWitnesses: {', '.join(listed) or '(none)'}"
            for n, (d, s, t) in enumerate(lines[:6], start=1)
        ]
        return "\n\n".join(blocks) or "NO EVENTS"
    if "decide whether the character is present" in system:
        if who.group(1) in listed:
            return f"Presence: on_screen\nWitnessed event IDs: {', '.join(event_ids) or '(none)'}"
        return "Presence: absent_unmentioned\nWitnessed event IDs: (none)"
    if "record what the character is told" in system:
        spoken = re.findall(r"^- DIALOGUE \| ([^|]+) \| [^|]* \| (.*)$", user, re.M)
        told = [
            f"- Proposition: {text[:60]}\nSource: {speaker.strip()}\nBelieved: yes"
            for speaker, text in spoken
            if speaker.strip() != who.group(1)
        ][:2]
        return (
            "TOLD\n" + ("\n\n".join(told) or "(none)") + "\n\nINFERRED\n(none)\n\n"
            "FALSE BELIEFS HELD\n(none)\n\nREVISIONS\n(none)"
        )
    group = re.search(r"^Target group: (.*)$", user, re.M).group(1).split(", ")
    if not event_ids:
        return "NONE"
    return (
        f"- About: {group[0]}\nClaim: {group[0]} was there when it happened\n"
        f"Type: about_third_party\nSource: shared_witnessing\nBasis: {event_ids[0]}\n"
        "Confidence: high"
    )


@pytest.mark.slow
def test_real_screenplay_through_the_llm_path(store, shared_data, fake_llm):
    from pipelines.preprocess.ingest import ingest_film

    folder = shared_data / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles"
    ingest_film(store, folder / "chinatown.txt", folder / "chinatown.srt")
    config = fake_llm.config(fake_llm(_faithful_reply), structured="none")
    result = annotate(
        store, "chinatown", "openai", Selection(1, 3, ["GITTES", "CURLY", "WALSH"]), config=config
    )
    counts = store.df(
        "SELECT 'presence' AS t, count(*) AS n FROM presence WHERE run_id = ?"
        " UNION ALL SELECT 'beliefs', count(*) FROM beliefs WHERE run_id = ?"
        " UNION ALL SELECT 'events', count(*) FROM scene_events WHERE run_id = ?",
        [result.run_id] * 3,
    )
    n = dict(zip(counts["t"], counts["n"]))
    assert n["presence"] == 2 * 3 and n["events"] > 0 and n["beliefs"] > 0
    presence = store.df(
        "SELECT scene_index, character, status FROM presence WHERE run_id = ?", [result.run_id]
    )
    on = {(r.scene_index, r.character) for r in presence.itertuples() if r.status == "on_screen"}
    assert {(1, "GITTES"), (1, "CURLY")} <= on  # Curly weeps in Gittes' office
    told = store.df(
        "SELECT holder, source_character FROM beliefs WHERE run_id = ? AND kind = 'told'",
        [result.run_id],
    )
    assert ("CURLY", "GITTES") in set(zip(told["holder"], told["source_character"]))
    assert result.params["failed"] == 0


def test_cli_openai_backend_reads_the_endpoint_from_env(
    fixture_film,
    fake_llm,  # noqa: F811
    monkeypatch,
):
    import json

    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands

    load_commands()
    server = fake_llm(route)
    monkeypatch.setenv("STORYSCOPE_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-SECRET-0123456789abcdef")
    monkeypatch.setenv("STORYSCOPE_LLM_STRUCTURED", "none")
    monkeypatch.setenv("STORYSCOPE_LLM_MAX_RETRIES", "0")
    result = CliRunner().invoke(
        app,
        [
            "beliefs",
            "annotate",
            "--film",
            FILM,
            "--backend",
            "openai",
            "--scenes",
            "0:1",
            "--characters",
            "SAM,NORA",
            "--store",
            str(fixture_film.path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["backend"] == "openai" and payload["rows"]["presence"] == 2
    assert "SECRET" not in result.output
    dry = CliRunner().invoke(
        app,
        [
            "beliefs",
            "annotate",
            "--film",
            FILM,
            "--backend",
            "openai",
            "--dry-run",
            "--store",
            str(fixture_film.path),
        ],
    )
    assert dry.exit_code == 0 and "would write" in dry.output


def test_budget_stops_the_run_and_keeps_what_was_done(fixture_film, fake_llm):  # noqa: F811
    server = fake_llm(route)
    config = fake_llm.config(server, structured="none", budget_tokens=1, concurrency=1)
    result = annotate(fixture_film, FILM, "openai", Selection(0, 2), config=config)
    run = fixture_film.df("SELECT status FROM runs WHERE run_id = ?", [result.run_id])
    assert run["status"].iloc[0] == "stopped"
    sent = fixture_film.scalar("SELECT count(*) FROM llm_calls WHERE run_id = ?", [result.run_id])
    assert sent >= 1
    assert result.counts["scene_events"] == 2  # scene 0's events call went out
    assert result.counts["presence"] == 0
