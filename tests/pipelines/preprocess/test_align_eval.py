"""align-eval: our alignment and the release's automatic one against results_human.

The fixture is built in code with the pattern found in the released sheets: the humans correct a
cue's speaker and scene and leave the automatic's script row (`index_result`) as it was.
"""

from __future__ import annotations

import json

import pytest

from pipelines.preprocess.align_eval import (
    evaluate_file,
    monotone_share,
    speaker_names,
    speakers_agree,
    summarise,
)
from pipelines.preprocess.aligned_script import AlignedScriptError, load_sheets

SCRIPT = [  # id, record type, scene, speaker, text
    ("1", "scene", "1", "", "A harbour office, night."),
    ("2", "dialog", "1", "MARA", "Where were you last night?"),
    ("3", "dialog", "1", "TOMAS (CONT'D)", "At the harbour, checking the boats."),
    ("4", "scene", "2", "", "The quay."),
    ("5", "dialog", "2", "MARA", "You're lying to me."),
    ("6", "scene", "3", "", "A boat, later."),
    ("7", "dialog", "3", "TOMAS", "Goodbye, Mara."),
]
CUES = [
    "Where were you last night?",
    "At the harbour,",
    "checking the boats.",
    "You're lying to me.",
    "Get out!",
    "Goodbye.",
]
AUTOMATIC_ROWS = ["2", "2", "3", "5", "5", "5"]  # a DTW that lags at the end
HUMAN = [
    ("1", "MARA"),
    ("1", "TOMAS"),
    ("1", "TOMAS"),
    ("2", "MARA"),
    ("2", "TOMAS (O.S.)"),
    ("3", "TOMAS"),
]


def aligned_script() -> dict:
    """Sheets of one aligned-script file: subtitle, script, results, results_human."""
    script = [
        {
            "Unnamed: 0": i,
            "record_type": kind,
            "scene_index": scene,
            "characters": who,
            "content": text,
        }
        for i, kind, scene, who, text in SCRIPT
    ]
    by_id = {row["Unnamed: 0"]: row for row in script}
    subtitle = [
        {
            "Unnamed: 0": str(i + 1),
            "start_time": f"00:00:0{i},000",
            "end_time": f"00:00:0{i},900",
            "dialog": text,
        }
        for i, text in enumerate(CUES)
    ]
    automatic = [
        {
            **cue,
            "index_result": row,
            "scene_index": by_id[row]["scene_index"],
            "characters": by_id[row]["characters"],
        }
        for cue, row in zip(subtitle, AUTOMATIC_ROWS)
    ]
    # the humans fix scene and speaker, and keep the automatic's row
    human = [
        {**auto, "scene_index": scene, "characters": who, "consistent": "1"}
        for auto, (scene, who) in zip(automatic, HUMAN)
    ]
    return {"subtitle": subtitle, "script": script, "results": automatic, "results_human": human}


def _write(tmp_path, data: dict, name: str = "Movie-X.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_scores_scene_and_speaker_the_humans_corrected(tmp_path):
    result = evaluate_file(_write(tmp_path, aligned_script()))
    assert result.cues == 6
    # automatic right on cues 1, 3, 4 (the humans re-voiced 2 and 5, and moved 6 to scene 3)
    assert result.automatic == pytest.approx(3 / 6)
    # ours puts "At the harbour," on Tomas's line and "Goodbye." in scene 3; only the ad-lib
    # "Get out!" (no script line) misses: the DP gives it the next line, Tomas's in scene 3
    assert result.ours == pytest.approx(5 / 6)
    scene, speaker, row = (result.fields[name] for name in ("scene", "speaker", "row"))
    assert (scene.edited, speaker.edited, row.edited) == (1, 3, 0)
    assert scene.automatic == pytest.approx(5 / 6) and speaker.automatic == pytest.approx(3 / 6)
    assert row.automatic == 1.0  # the stale column: never edited
    assert speaker.ours_on_edited == 1.0 and scene.ours_on_edited == 1.0
    assert scene.ours == pytest.approx(5 / 6) and speaker.ours == 1.0
    assert result.stale_rows == 1  # "Goodbye.": row 5 of scene 2, human scene 3


def test_gold_pairs_that_no_script_row_carries_are_counted(tmp_path):
    result = evaluate_file(_write(tmp_path, aligned_script()))
    # "Get out!": the humans voiced it TOMAS (O.S.) in scene 2, where only MARA speaks, so a
    # script row can have its human scene or its human speaker, not both.
    assert result.gold_pair_absent == 1
    elsewhere = result.scene_where_pair_exists
    assert elsewhere.ours == 1.0 and elsewhere.automatic == pytest.approx(4 / 5)
    assert result.human_scene_monotone == 1.0  # scenes 1 1 1 2 2 3
    row = summarise([result])["files"][0]
    assert row["gold_pair_absent"] == 1 and row["scene_where_pair_exists"]["ours"] == 1.0


def test_monotone_share_is_the_longest_run_that_never_goes_back():
    assert monotone_share(["1", "3", "2", "4"]) == 0.75
    assert monotone_share(["5", "5", "6", "2", "7"]) == 0.8
    assert monotone_share(["1", "x"]) is None and monotone_share([]) is None


def test_dtw_method_is_scored_the_same_way(tmp_path):
    result = evaluate_file(_write(tmp_path, aligned_script()), "dtw")
    assert result.cues == 6 and result.method == "dtw"
    assert 0.0 <= result.ours <= 1.0 and result.automatic == pytest.approx(3 / 6)


def test_unknown_method_is_refused(tmp_path):
    with pytest.raises(AlignedScriptError, match="unknown alignment method 'viterbi'"):
        evaluate_file(_write(tmp_path, aligned_script()), "viterbi")


@pytest.mark.parametrize(
    ("label", "gold", "agree"),
    [
        ("RED (V.O.)", "RED(V.O.)", True),
        ("ANDY", "ANDY-RED", True),  # a two-speaker cue agrees with either speaker
        ("HADLEY (CONT'D)", "HADLEY", True),
        ("Mr. Smith", "MR SMITH", True),
        ("GUARD #1", "GUARD 1", True),
        ("(MORE)", "TOMMY", False),  # the release parser's page-break artefact names nobody
        ("BOGS", "HEYWOOD", False),
        ("", "", True),
        ("RED", "", False),
    ],
)
def test_speaker_comparison(label, gold, agree):
    assert speakers_agree(label, gold) is agree


def test_speaker_names_split_and_fold():
    assert speaker_names("WAYNE/RACHEL") == {"WAYNE", "RACHEL"}
    assert speaker_names("Gordon & the Woman") == {"GORDON", "THEWOMAN"}
    assert speaker_names("(MORE)") == frozenset()


def test_summary_keeps_the_issue_shape_and_adds_the_fields(tmp_path):
    result = evaluate_file(_write(tmp_path, aligned_script(), "IMDB-1-X.json"))
    got = evaluate_file(_write(tmp_path, aligned_script(), "GOT-S01E01.json"))
    summary = summarise([result, got])
    assert set(summary) == {"files", "ours_mean", "automatic_mean", "groups"}
    first = summary["files"][0]
    assert {"file", "cues", "ours", "automatic"} <= set(first)
    assert first["measure"] == "scene+speaker" and first["stale_rows"] == 1
    # on the stale row column ours differs from the humans exactly where it fixed their
    # speaker/scene
    assert first["row"] == {"ours": 0.5, "automatic": 1.0, "edited": 0, "ours_on_edited": None}
    assert summary["groups"]["films"]["wins"] == 1 and set(summary["groups"]) == {"films", "GOT"}
    assert summary["ours_mean"] == pytest.approx(5 / 6, abs=1e-4)


def test_reads_the_released_xlsx(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in aligned_script().items():
        sheet = book.create_sheet(name + ("_S01E01" if name in ("subtitle", "script") else ""))
        header = sorted({key for row in rows for key in row})
        sheet.append(header)
        for row in rows:
            sheet.append([row.get(key) for key in header])
    path = tmp_path / "GOT-S01E01.xlsx"
    book.save(path)
    assert set(load_sheets(path)) == {
        "subtitle_S01E01",
        "script_S01E01",
        "results",
        "results_human",
    }
    result = evaluate_file(path)
    assert (result.ours, result.automatic) == (pytest.approx(5 / 6), pytest.approx(3 / 6))


def test_bad_files_name_the_problem(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(AlignedScriptError, match="broken.json: not valid JSON"):
        evaluate_file(broken)
    data = aligned_script()
    del data["results_human"]
    with pytest.raises(AlignedScriptError, match="no sheet named 'results_human'"):
        evaluate_file(_write(tmp_path, data, "nohuman.json"))
    data = aligned_script()
    data["results_human"] = [{**row, "start_time": "09:00:00,000"} for row in data["results_human"]]
    with pytest.raises(AlignedScriptError, match="no subtitle row matches a row of results_human"):
        evaluate_file(_write(tmp_path, data, "unmatched.json"))


# -- the issue's bar on the released sheets ------------------------------------------------------

FILMS = {  # file: (cues, ours, automatic), measured with --method dp on this commit
    "IMDB-001-The Shawshank Redemption.json": (1686, 0.806, 0.769),
    "IMDB-004-The Dark Knight.json": (1897, 0.781, 0.775),
    "IMDB-039-The Terminator.json": (564, 0.755, 0.608),
    "IMDB-041-The Pianist.json": (772, 0.890, 0.855),
    "IMDB-046-The Departed.json": (1911, 0.686, 0.608),
    "IMDB-114-Chinatown.json": (1465, 0.884, 0.785),
    "IMDB-211-Harry Potter 1.json": (1757, 0.938, 0.921),
}


@pytest.mark.realdata
def test_ours_at_least_the_automatic_on_every_film(shared_data):
    folder = shared_data / "storyvideoqa" / "aligned_script" / "Movie"
    results = [evaluate_file(folder / name) for name in FILMS]
    for result in results:
        cues, ours, automatic = FILMS[result.file]
        assert (result.cues, result.ours, result.automatic) == (
            cues,
            pytest.approx(ours, abs=0.002),
            pytest.approx(automatic, abs=0.002),
        )
        assert result.ours >= result.automatic, result.file
        assert result.fields["speaker"].ours > result.fields["speaker"].automatic, result.file
        # the humans' row column is the automatic's own answer on 96-99% of cues
        assert result.fields["row"].automatic > 0.93
    summary = summarise(results)
    assert summary["ours_mean"] > summary["automatic_mean"] + 0.05


# Scene agreement per film (ours, automatic) after the neighbour rule (cues with no
# script words take the line of their nearer scored neighbour in time). Ours is still below the
# automatic alignment on Shawshank and The Dark Knight (noted in docs/PREPROCESSING.md).
SCENES = {
    "IMDB-001-The Shawshank Redemption.json": (0.904, 0.943),
    "IMDB-004-The Dark Knight.json": (0.881, 0.954),
    "IMDB-039-The Terminator.json": (0.855, 0.747),
    "IMDB-041-The Pianist.json": (0.970, 0.968),
    "IMDB-046-The Departed.json": (0.828, 0.798),
    "IMDB-114-Chinatown.json": (0.943, 0.917),
    "IMDB-211-Harry Potter 1.json": (0.970, 0.962),
}


@pytest.mark.realdata
def test_scene_agreement_per_film_is_pinned(shared_data):
    folder = shared_data / "storyvideoqa" / "aligned_script" / "Movie"
    for name, (ours, automatic) in SCENES.items():
        result = evaluate_file(folder / name)
        # the human scenes follow the script's scene order (a monotone aligner is not the limit)
        assert result.human_scene_monotone >= 0.97, name
        scene = result.fields["scene"]
        assert (scene.ours, scene.automatic) == (
            pytest.approx(ours, abs=0.002),
            pytest.approx(automatic, abs=0.002),
        ), name


@pytest.mark.realdata
def test_got_episodes_the_humans_left_untouched_are_reported_as_such(shared_data):
    folder = shared_data / "storyvideoqa" / "aligned_script" / "GOT"
    untouched = evaluate_file(folder / "GOT-S01E01.json")
    assert untouched.automatic == 1.0 and all(f.edited == 0 for f in untouched.fields.values())
    # The sheet's scenes 19 and 22 hold rows the script sheet puts in scenes 18, 23 and 24
    # (stale_rows 35): 34 cues' human (scene, speaker) is no script row, and on the other cues
    # ours has the human scene on 99.6%
    assert untouched.gold_pair_absent == 34 and untouched.stale_rows == 35
    assert untouched.fields["scene"].ours == pytest.approx(0.940, abs=0.002)
    assert untouched.scene_where_pair_exists.ours == pytest.approx(0.996, abs=0.002)
    corrected = evaluate_file(folder / "GOT-S01E10.json")
    assert corrected.cues == 634 and corrected.fields["row"].edited == 38
    assert corrected.ours > corrected.automatic


def test_cli_json_and_text(tmp_path):
    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands

    load_commands()
    path = _write(tmp_path, aligned_script(), "IMDB-1-X.json")
    result = CliRunner().invoke(app, ["align-eval", "--json", str(path)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert set(summary) == {"files", "ours_mean", "automatic_mean"}
    assert (summary["files"][0]["ours"], summary["files"][0]["automatic"]) == (0.8333, 0.5)
    text = CliRunner().invoke(app, ["align-eval", str(path)])
    assert (
        text.exit_code == 0
        and "films: ours 0.833  automatic 0.500  (ours >= automatic on 1 of 1 files)" in text.output
    )
    missing = CliRunner().invoke(app, ["align-eval", str(tmp_path / "absent.json")])
    assert missing.exit_code != 0 and "absent.json: no such file" in missing.output
