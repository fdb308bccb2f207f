"""The offline 'rules' backend over a screenplay in the store (fixture film + real Chinatown)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pipelines.beliefs.annotate import AnnotateError, Selection, annotate, parse_scene_range
from pipelines.beliefs.rules.engine import Roster, voice_mode
from pipelines.cli import app, load_commands
from tests.support.rules_film import FILM
from tests.support.rules_film import fixture_film as fixture_film  # noqa: F401 (a fixture)

load_commands()


def _presence(store):
    frame = store.df("SELECT scene_index, character, status, witnessed_events FROM presence")
    return {
        (r.scene_index, r.character): (r.status, list(r.witnessed_events))
        for r in frame.itertuples()
    }


def test_presence_ladder_and_witnesses(fixture_film):
    result = annotate(fixture_film, FILM, "rules")
    assert result.backend == "rules" and result.run_id
    presence = _presence(fixture_film)
    assert presence[(0, "NORA")][0] == "on_screen"
    assert presence[(0, "SAM")] == ("on_screen", ["e_000_1", "e_000_2", "e_000_3", "e_000_4"])
    assert presence[(0, "VICTOR")] == ("offscreen_aware", [])  # V.O. only
    assert presence[(1, "VICTOR")][0] == "offscreen_unaware"  # named, absent
    assert presence[(1, "ELLEN")][0] == "on_screen"  # O.S. is presence
    # Nora is knocked out in the first direction: a participant, not a witness (Table 18's
    # "unconscious victim"), and she witnesses nothing after it.
    assert presence[(1, "NORA")] == ("on_screen", [])
    knock = fixture_film.df("SELECT participants FROM scene_events WHERE event_id = 'e_001_1'")
    assert sorted(knock["participants"].iloc[0]) == ["NORA", "SAM"]
    # Scene 2 is at the same place; Sam and Nora were on screen there and are not shown leaving.
    assert presence[(2, "SAM")][0] == "offscreen_aware"
    assert presence[(2, "ELLEN")][0] == "on_screen"
    run = fixture_film.df("SELECT backend, step FROM runs WHERE run_id = ?", [result.run_id])
    assert run.iloc[0].to_dict() == {"backend": "rules", "step": "beliefs.annotate"}


def test_told_lines_reach_present_listeners_only(fixture_film):
    annotate(fixture_film, FILM, "rules")
    told = fixture_film.df(
        "SELECT holder, source_character, content, basis FROM beliefs"
        " WHERE kind = 'told' ORDER BY scene_index, holder"
    )
    pairs = {(r.holder, r.source_character, r.content) for r in told.itertuples()}
    assert ("NORA", "SAM", "The bridge is out, we are stuck here.") in pairs
    assert not any(r.content.startswith("Then we wait") for r in told.itertuples())  # < 4 words
    assert not any(r.source_character == "VICTOR" for r in told.itertuples())  # V.O.
    ledger = [r for r in told.itertuples() if "ledger" in r.content]
    assert {r.holder for r in ledger} == {"ELLEN"}  # Nora is unconscious
    assert list(ledger[0].basis) == ["e_001_2"]


def test_selection_dry_run_and_errors(fixture_film):
    result = annotate(fixture_film, FILM, "rules", Selection(1, 2, ["SAM"]), dry_run=True)
    assert result.run_id is None
    assert {row["scene_index"] for row in result.tables["scene_events"]} == {1}
    assert {row["character"] for row in result.tables["presence"]} == {"SAM"}
    assert fixture_film.scalar("SELECT count(*) FROM presence") == 0
    with pytest.raises(AnnotateError, match="no film"):
        annotate(fixture_film, "missing", "rules")
    assert parse_scene_range("3:") == (3, None)
    with pytest.raises(AnnotateError):
        parse_scene_range("x:y")


def _current(store, table: str, who: str) -> dict:
    frame = store.df(
        f"SELECT scene_index, {who} AS who, run_id, * EXCLUDE (run_id) FROM current_{table}"
    )
    return {
        (r.scene_index, r.who, getattr(r, "belief_id", None)): r.run_id for r in frame.itertuples()
    }


def test_partial_runs_replace_only_their_scenes_and_characters(fixture_film):
    store = fixture_film
    full = annotate(store, FILM, "rules").run_id
    before = {
        table: _current(store, table, who)
        for table, who in (("presence", "character"), ("beliefs", "holder"))
    }
    assert set(before["beliefs"].values()) == {full} and len(before["beliefs"]) >= 2
    # rerun scene 1 only: scenes 0 and 2 stay with the full run, scene 1 moves to the new run
    scene_1 = annotate(store, FILM, "rules", Selection(1, 2)).run_id
    for table, cells in before.items():
        now = _current(store, table, "character" if table == "presence" else "holder")
        assert set(now) == set(cells)  # same cells, same (stable) belief ids
        assert {cell for cell, run in now.items() if run == scene_1} == {
            c for c in cells if c[0] == 1
        }
    events = store.df("SELECT scene_index, run_id FROM current_scene_events")
    assert set(events[events.run_id == scene_1].scene_index) == {1}
    assert set(events[events.run_id == full].scene_index) == {0, 2}
    # then one character over the whole film: only that character's cells move
    ellen = annotate(store, FILM, "rules", Selection(None, None, ["ELLEN"])).run_id
    now = _current(store, "presence", "character")
    assert {who for (_, who, _), run in now.items() if run == ellen} == {"ELLEN"}
    assert {run for (scene, who, _), run in now.items() if who == "SAM" and scene == 1} == {scene_1}
    assert len(now) == len(before["presence"])


def test_cli_annotate(fixture_film):
    result = CliRunner().invoke(
        app,
        [
            "beliefs",
            "annotate",
            "--film",
            FILM,
            "--store",
            str(fixture_film.path),
            "--scenes",
            "0:1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "backend: rules" in result.output
    assert fixture_film.scalar("SELECT count(DISTINCT scene_index) FROM presence") == 1


@pytest.mark.parametrize(
    "parenthetical, extensions, cue, mode",
    [
        (None, ("V.O.",), "NORA", "voice_over"),
        ("on phone", (), "NORA", "voice_over"),
        (None, ("O.S.",), "NORA", "offscreen"),
        ("crying out", (), "CURLY'S VOICE", "offscreen"),
        ("quietly", (), "NORA", "in_person"),
    ],
)
def test_voice_modes(parenthetical, extensions, cue, mode):
    assert voice_mode("NORA", parenthetical, extensions, cue) == mode


def test_names_in_directions_need_capitals_or_title_case():
    roster = Roster({"SECRETARY": [], "GITTES": ["GITTES' VOICE"]})
    assert roster.mentioned("A secretary types. Gittes waits.") == ["GITTES"]
    assert roster.mentioned("The SECRETARY looks up.") == ["SECRETARY"]


def test_demo_step_skips_without_films(store):
    from pipelines.demo import step_45_sample_film_beliefs

    messages = []
    step_45_sample_film_beliefs.run(store, None, messages.append)
    assert "skipped" in messages[0]


@pytest.mark.slow
def test_real_screenplay_chinatown(store, shared_data):
    from pipelines.preprocess.ingest import ingest_film

    folder = shared_data / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles"
    ingest_film(store, folder / "chinatown.txt", folder / "chinatown.srt")
    result = annotate(store, "chinatown", "rules")
    assert result.params["voices_from_source"] is True
    presence = _presence(store)
    # Scene 1: Curly weeps in Gittes' office (INT. GITTES' OFFICE), both on screen.
    assert presence[(1, "GITTES")][0] == "on_screen"
    assert presence[(1, "CURLY")][0] == "on_screen"
    assert result.counts["scene_events"] == store.scalar(
        "SELECT count(*) FROM script_lines WHERE film_id = 'chinatown' AND scene_index IS NOT NULL"
    )
    assert result.counts["beliefs"] > 1000
    statuses = set(store.df("SELECT DISTINCT status FROM presence")["status"])
    assert {"on_screen", "offscreen_unaware", "absent_unmentioned"} <= statuses


def test_joint_cues_are_their_speakers():
    from pipelines.beliefs.rules.engine import split_group

    assert split_group("Phoebe, Ross, Chandler, and Joey") == ["Phoebe", "Ross", "Chandler", "Joey"]
    assert split_group("JOEY/CHANDLER") == ["JOEY", "CHANDLER"]
    assert split_group("MRS. MULWRAY") == ["MRS. MULWRAY"]


@pytest.mark.slow
def test_storyvideoqa_aligned_episode(store, shared_data, tmp_path):
    import shutil

    from data_access.importers.storyvideoqa import import_storyvideoqa_dir

    episode = shared_data / "storyvideoqa" / "aligned_script" / "Friends" / "Friends-S01E01.json"
    layout = tmp_path / "svqa"
    (layout / "aligned_script" / "Friends").mkdir(parents=True)
    (layout / "golden_questions").mkdir()
    shutil.copy(episode, layout / "aligned_script" / "Friends")
    shutil.copytree(shared_data / "storyvideoqa" / "meta", layout / "meta")
    import_storyvideoqa_dir(store, layout)
    result = annotate(store, "Friends-S01E01", "rules")
    characters = set(store.df("SELECT DISTINCT character FROM presence")["character"])
    assert {"Monica", "Joey", "Chandler", "Phoebe", "Ross", "Rachel"} <= characters
    assert not any("," in c for c in characters)  # joint cues split into speakers
    presence = _presence(store)
    assert presence[(2, "Phoebe")][0] == "on_screen"
    assert result.counts["beliefs"] > 500
