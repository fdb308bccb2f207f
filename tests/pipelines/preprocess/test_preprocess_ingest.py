"""`storyscope film ingest`: one run, one transaction; bad input leaves the store untouched."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from data_access.queries import film_view
from pipelines.cli import app, load_commands
from pipelines.preprocess.files import ScreenplayError
from pipelines.preprocess.ingest import ingest_film
from pipelines.preprocess.timing import AlignmentFailed
from tests.support.ingest_texts import SCREENPLAY, SUBTITLES

TABLES = ["films", "scenes", "script_lines", "characters", "subtitles", "runs", "datasets"]


def _counts(store) -> dict[str, int]:
    return {table: store.scalar(f"SELECT count(*) FROM {table}") for table in TABLES}


def test_sample_film_ingests_as_one_run(store):
    report = ingest_film(store, SCREENPLAY, SUBTITLES, title="The Keeper's Ledger", year=2026)
    assert report.film_id == "the-keepers-ledger-2026"
    assert (report.scenes, report.dialogue_lines, report.cues, report.characters) == (
        19,
        84,
        119,
        6,
    )
    assert report.share_lines_matched > 0.95
    scenes = film_view.scene_timeline(store, report.film_id)
    assert list(scenes["time_source"]).count("interpolated") == 1  # the quay scene is cut
    assert scenes.loc[5, "time_source"] == "interpolated"
    assert scenes["start_s"].is_monotonic_increasing
    runs = store.df("SELECT step, backend, status, n_items FROM runs")
    assert runs.to_dict("records") == [
        {
            "step": "preprocess.film",
            "backend": "rules",
            "status": "finished",
            "n_items": 84 + report_directions(store, report.film_id),
        }
    ]
    assert set(store.df("SELECT DISTINCT run_id FROM script_lines")["run_id"]) == {report.run_id}


def report_directions(store, film_id: str) -> int:
    return store.scalar(
        "SELECT count(*) FROM script_lines WHERE film_id = ? AND kind = 'direction'", [film_id]
    )


def test_characters_aliases_first_spoken_and_evidence(store):
    report = ingest_film(store, SCREENPLAY, SUBTITLES, film_id="ledger")
    characters = store.df(
        "SELECT canonical_name, array_to_string(aliases, ', ') AS aliases, first_spoken_s,"
        " CAST(merge_evidence AS VARCHAR) AS merge_evidence FROM current_characters"
        " WHERE film_id = 'ledger'"
    ).set_index("canonical_name")
    assert set(characters.index) == {"MARA", "KIT", "RUTH", "JUNE", "TOMAS", "ELIAS"}
    assert characters.loc["RUTH", "aliases"] == "RUTH, RUTH OKAFOR"
    assert json.loads(characters.loc["RUTH", "merge_evidence"])[0]["rule"] == "first_name"
    # Ruth is on screen from scene 2 but nobody says her name until she shows her warrant card
    ruth_named = characters.loc["RUTH", "first_spoken_s"]
    card_scene = film_view.scene_timeline(store, "ledger").loc[8]
    assert card_scene.start_s <= ruth_named <= card_scene.end_s
    assert characters.loc["MARA", "first_spoken_s"] < characters.loc["RUTH", "first_spoken_s"]
    lines = store.df("SELECT DISTINCT character FROM script_lines WHERE kind = 'dialogue'")
    assert "RUTH OKAFOR" not in set(lines["character"])  # one name used throughout the film
    assert report.characters == 6


def test_cues_point_at_their_lines_and_scene_reader(store):
    ingest_film(store, SCREENPLAY, SUBTITLES, film_id="ledger")
    lines = film_view.scene_lines(store, "ledger", 0)
    kit_line = lines[lines["text"] == "Is he breathing?"].iloc[0]
    cues = film_view.scene_subtitles(store, "ledger", 0)
    matched = cues[cues["matched_line"] == kit_line["line_index"]].sort_values("cue_index")
    # the ad-libbed cue before it has no script line of its own; it belongs to the next one
    assert list(matched["text"]) == ["Mara! Over here!", "Is he breathing?"]
    assert kit_line["character"] == "KIT"
    scene_12 = film_view.scene_lines(store, "ledger", 12)
    speakers = set(scene_12.loc[scene_12["kind"] == "dialogue", "character"])
    assert speakers == {"TOMAS", "RUTH", "JUNE"}
    timeline = film_view.scene_timeline(store, "ledger")
    assert len(timeline) == 19 and (timeline["time_source"] == "matched").sum() == 18
    assert store.scalar("SELECT count(*) FROM current_subtitles WHERE film_id = 'ledger'") == 119


def test_reingest_appends_a_run_and_current_views_pick_it(store):
    first = ingest_film(store, SCREENPLAY, SUBTITLES, film_id="ledger")
    second = ingest_film(store, SCREENPLAY, SUBTITLES, film_id="ledger")
    assert store.scalar("SELECT count(*) FROM films") == 1
    assert store.scalar("SELECT count(DISTINCT run_id) FROM scenes") == 2
    assert (
        set(store.df("SELECT DISTINCT run_id FROM current_scenes")["run_id"])
        == {second.run_id}
        != {first.run_id}
    )


def test_other_films_subtitles_fail_and_write_nothing(store, tmp_path):
    other = tmp_path / "other.srt"
    other.write_text(
        "1\n00:00:01,000 --> 00:00:03,000\nI'll be back.\n\n"
        "2\n00:00:04,000 --> 00:00:06,000\nCome with me if you want to live.\n"
    )
    before = _counts(store)
    with pytest.raises(AlignmentFailed, match="are these the subtitles of this film"):
        ingest_film(store, SCREENPLAY, other)
    assert _counts(store) == before


def test_pdf_renamed_txt_and_empty_file_are_refused(store, tmp_path):
    pdf = tmp_path / "script.txt"
    pdf.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
    with pytest.raises(ScreenplayError, match=r"script.txt: this is a PDF file"):
        ingest_film(store, pdf, SUBTITLES)
    empty = tmp_path / "empty.fountain"
    empty.write_text("\n\n")
    with pytest.raises(ScreenplayError, match="empty.fountain: the file is empty"):
        ingest_film(store, empty, SUBTITLES)
    prose = tmp_path / "notes.txt"
    prose.write_text("Shopping list: eggs, milk, bread.\nCall the plumber on Monday.\n")
    with pytest.raises(ScreenplayError, match="no scene with dialogue"):
        ingest_film(store, prose, SUBTITLES)
    assert _counts(store)["films"] == 0


def test_failure_during_write_rolls_back(store, monkeypatch):
    import pipelines.preprocess.ingest as ingest_module

    real_write = ingest_module.write_film

    def write_then_fail(cursor, rows, run_id):
        real_write(cursor, rows, run_id)
        raise RuntimeError("disk full")

    monkeypatch.setattr(ingest_module, "write_film", write_then_fail)
    before = _counts(store)
    with pytest.raises(RuntimeError, match="disk full"):
        ingest_film(store, SCREENPLAY, SUBTITLES)
    assert _counts(store) == before


def test_video_path_and_fps_recorded(store, tmp_path):
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 12.0, (32, 24))
    for _ in range(24):
        writer.write(np.zeros((24, 32, 3), dtype=np.uint8))
    writer.release()
    ingest_film(store, SCREENPLAY, SUBTITLES, film_id="ledger", video=video)
    row = store.df("SELECT video_path, fps, runtime_s FROM films WHERE film_id = 'ledger'").iloc[0]
    assert row["video_path"] == str(video) and row["fps"] == pytest.approx(12.0)
    assert row["runtime_s"] == pytest.approx(2.0, abs=0.1)


def test_cli_ingest_json_and_clear_errors(store_path, tmp_path):
    load_commands()
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "film",
            "ingest",
            "--screenplay",
            str(SCREENPLAY),
            "--subtitles",
            str(SUBTITLES),
            "--title",
            "The Keeper's Ledger",
            "--store",
            str(store_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["scenes"] == 19
    bad = tmp_path / "bad.srt"
    bad.write_text(
        "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:zz --> 00:00:03,000\nbroken\n"
    )
    result = runner.invoke(
        app,
        [
            "film",
            "ingest",
            "--screenplay",
            str(SCREENPLAY),
            "--subtitles",
            str(bad),
            "--store",
            str(store_path),
        ],
    )
    assert result.exit_code == 2
    assert (
        "bad.srt: line 6: unreadable timing" in result.output
        and "nothing was written" in result.output
    )
    assert "Traceback" not in result.output


def test_cli_parse_prints_table15():
    load_commands()
    result = CliRunner().invoke(app, ["film", "parse", str(SCREENPLAY)])
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "SCENE 1\nContinuation: no\nHeading: EXT. GULL POINT LIGHTHOUSE - DAWN\n"
    )
    assert (
        "- DIALOGUE | MARA | kneeling | No. He's cold. He's been in the water all night."
        in result.stdout
    )


@pytest.mark.realdata
@pytest.mark.parametrize(
    "name,min_lines_matched,min_scenes_matched",
    [("chinatown", 0.6, 0.6), ("mission_impossible", 0.5, 0.35), ("birthday_girl", 0.35, 0.2)],
)
def test_real_pairs_ingest(store, shared_data, name, min_lines_matched, min_scenes_matched):
    folder = shared_data / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles"
    report = ingest_film(store, folder / f"{name}.txt", folder / f"{name}.srt")
    assert report.share_lines_matched >= min_lines_matched
    assert report.share_scenes_matched >= min_scenes_matched
    timeline = film_view.scene_timeline(store, report.film_id)
    matched = timeline[timeline["time_source"] == "matched"]
    # matched scene spans follow the script order almost everywhere (reordered scenes are rare)
    assert (matched["start_s"].diff().dropna() >= 0).mean() > 0.9
