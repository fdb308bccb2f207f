"""Alignment (LF-VideoQA App. C rule), scene timing, first-spoken names and align-eval."""

from __future__ import annotations

import json

import pytest

from pipelines.preprocess import parse_fountain
from pipelines.preprocess.align import align_cues_to_lines
from pipelines.preprocess.aligned_script import AlignedScriptError, evaluate_file, load_sheets, summarise
from pipelines.preprocess.srt_reader import Cue
from pipelines.preprocess.timing import AlignmentFailed, first_spoken_times, time_film

LINES = [
    "Where were you last night?",
    "At the harbour, checking the boats like every night.",
    "Nobody saw you at the harbour.",
    "Then nobody was looking.",
    "This line was cut from the film entirely.",
    "You're lying to me, Tomas.",
]


def test_split_and_merged_cues_and_cut_lines():
    cues = [
        "Where were you last night?",
        "At the harbour,", "checking the boats like every night.",      # one line split over two cues
        "- Nobody saw you at the harbour. - Then nobody was looking.",   # two lines merged in one cue
        "You're lying to me, Tomas.",                                    # line 4 was cut
    ]
    result = align_cues_to_lines(cues, LINES)
    assert result.cue_to_line == [0, 1, 1, 2, 5]
    assert result.line_matched == [True, True, True, True, False, True]   # both merged lines heard


def test_two_speaker_cue_belongs_to_the_first_speakers_line_and_covers_both():
    lines = ["Where is the harbour master?", "Will you shut up?", "Who have we here?"]
    cues = ["- Where's the harbour master? - Will you shut up?", "Who have we here?"]
    result = align_cues_to_lines(cues, lines)
    assert result.cue_to_line == [0, 2]
    assert result.line_matched == [True, True, True]


def test_split_turns():
    from pipelines.preprocess.align import split_turns

    assert split_turns("- No. Really?\n- I'm afraid so.") == ["No. Really?", "I'm afraid so."]
    assert split_turns("...but I do. - no, I meant every word.") == ["...but I do.", "no, I meant every word."]
    assert split_turns("I - I don't know") == ["I - I don't know"]
    assert split_turns("a well-known fact") == ["a well-known fact"]


def test_half_of_the_tokens_rule():
    # the cue says 3 of the line's 6 tokens: exactly half -> matched; 2 of 6 -> not matched
    half = align_cues_to_lines(["alpha beta gamma"], ["alpha beta gamma delta epsilon zeta"])
    under = align_cues_to_lines(["alpha beta"], ["alpha beta gamma delta epsilon zeta"])
    assert half.line_matched == [True] and half.line_coverage == [0.5]
    assert under.line_matched == [False]


def test_monotonic_even_when_a_late_line_matches_better():
    lines = ["the first thing", "the second thing", "the third thing", "first first first"]
    cues = ["the first thing", "the second thing", "first", "the third thing"]
    path = align_cues_to_lines(cues, lines).cue_to_line
    assert path == sorted(path)
    assert path[0] == 0 and path[-1] == 2


def _cues(texts_and_times):
    return [Cue(i, start, end, text, i + 1) for i, (start, end, text) in enumerate(texts_and_times)]


FILM = """INT. OFFICE - DAY

ANNA
Where were you last night?

BEN
At the harbour, checking the boats.

EXT. QUAY - NIGHT

Ben walks alone.

BEN
Nobody reads a log in a cellar.

INT. INN - NIGHT

ANNA
Ben is lying. I know it.

CARL
Then prove it, Anna.
"""


def test_scene_spans_matched_and_interpolated():
    screenplay = parse_fountain(FILM)
    cues = _cues([(10.0, 12.0, "Where were you last night?"), (12.5, 15.0, "At the harbour, checking the boats."),
                  (40.0, 42.0, "Ben is lying. I know it."), (42.5, 44.0, "Then prove it, Anna.")])
    timing = time_film(screenplay, cues)
    sources = [t.time_source for t in timing.scene_times]
    assert sources == ["matched", "interpolated", "matched"]
    assert (timing.scene_times[0].start_s, timing.scene_times[0].end_s) == (10.0, 15.0)
    middle = timing.scene_times[1]
    assert middle.start_s == 15.0 and middle.end_s == 40.0   # fills the gap between its neighbours
    assert timing.line_times[2] is None                        # the cut line has no time
    assert timing.share_scenes_matched == pytest.approx(2 / 3)


def test_subtitles_of_another_film_fail_clearly():
    screenplay = parse_fountain(FILM)
    cues = _cues([(1.0, 2.0, "The ships hung in the sky in much the same way that bricks don't."),
                  (3.0, 4.0, "Forty-two.")])
    with pytest.raises(AlignmentFailed, match=r"0% of 5 dialogue lines match"):
        time_film(screenplay, cues)


def test_first_spoken_names():
    cues = _cues([(1.0, 2.0, "Hello."), (5.0, 6.0, "Then prove it, Anna."), (9.0, 10.0, "Mr. Reyes!"),
                  (12.0, 13.0, "Anna again")])
    found = first_spoken_times({"ANNA": ["ANNA"], "TOMAS REYES": ["TOMAS REYES", "TOMAS"], "CARL": ["CARL"]},
                               cues, frozenset({"mr"}))
    assert found == {"ANNA": 5.0, "TOMAS REYES": 9.0}


# -- align-eval on an aligned-script file built in code ---------------------------------------

def _aligned_script() -> dict:
    script = [{"Unnamed: 0": "1", "record_type": "scene", "content": "A room."},
              {"Unnamed: 0": "2", "record_type": "dialog", "content": "Where were you last night?"},
              {"Unnamed: 0": "3", "record_type": "dialog", "content": "At the harbour, checking the boats."},
              {"Unnamed: 0": "4", "record_type": "dialog", "content": "You're lying to me."}]
    subs = [("00:00:01,000", "Where were you last night?"), ("00:00:03,000", "At the harbour,"),
            ("00:00:04,000", "checking the boats."), ("00:00:06,000", "You're lying to me.")]
    subtitle = [{"Unnamed: 0": str(i + 1), "start_time": t, "end_time": t, "dialog": d} for i, (t, d) in enumerate(subs)]
    human = [{**row, "index_result": idx} for row, idx in zip(subtitle, ["2", "3", "3", "4"])]
    automatic = [{**row, "index_result": idx} for row, idx in zip(subtitle, ["2", "2", "3", "4"])]
    return {"subtitle": subtitle, "script": script, "results": automatic, "results_human": human}


def test_align_eval_on_json_conversion(tmp_path):
    path = tmp_path / "Movie-X.json"
    path.write_text(json.dumps(_aligned_script()))
    result = evaluate_file(path)
    assert (result.cues, result.ours, result.automatic) == (4, 1.0, 0.75)
    # the humans corrected one automatic answer ("At the harbour," -> row 3); we agree with them
    assert (result.corrected, result.ours_on_corrected) == (1, 1.0)
    assert (result.ours_closer, result.gold_closer) == (0, 0)


def test_align_eval_textual_support_counts_disagreements(tmp_path):
    data = _aligned_script()
    data["results_human"][3]["index_result"] = "2"      # a "gold" row without the cue's words
    path = tmp_path / "Movie-Y.json"
    path.write_text(json.dumps(data))
    result = evaluate_file(path)
    assert result.ours == 0.75 and (result.ours_closer, result.gold_closer) == (1, 0)


def test_align_eval_reads_xlsx(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in _aligned_script().items():
        sheet = book.create_sheet(name + ("_S01E01" if name in ("subtitle", "script") else ""))
        header = sorted({key for row in rows for key in row})
        sheet.append(header)
        for row in rows:
            sheet.append([row.get(key) for key in header])
    path = tmp_path / "GOT-S01E01.xlsx"
    book.save(path)
    assert set(load_sheets(path)) == {"subtitle_S01E01", "script_S01E01", "results", "results_human"}
    result = evaluate_file(path)
    assert (result.ours, result.automatic) == (1.0, 0.75)


def test_align_eval_bad_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(AlignedScriptError, match="broken.json: not valid JSON"):
        evaluate_file(broken)
    missing = tmp_path / "nohuman.json"
    data = _aligned_script()
    del data["results_human"]
    missing.write_text(json.dumps(data))
    with pytest.raises(AlignedScriptError, match="no sheet named 'results_human'"):
        evaluate_file(missing)


def test_summary_shape_and_groups():
    from pipelines.preprocess.aligned_script import EvalResult

    summary = summarise([EvalResult("IMDB-1.json", 10, 0.9, 0.8), EvalResult("GOT-S01E01.json", 10, 0.7, 0.6),
                         EvalResult("Friends-S01E01.json", 10, 1.0, 1.0)])
    assert set(summary) == {"files", "ours_mean", "automatic_mean", "groups"}
    assert summary["ours_mean"] == pytest.approx(0.8667, abs=1e-4)
    assert summary["groups"]["films"]["ours_mean"] == 0.9
    assert set(summary["groups"]) == {"films", "GOT", "sitcoms"}


@pytest.mark.realdata
def test_align_eval_real_got_episode(shared_data):
    path = shared_data / "storyvideoqa" / "aligned_script" / "GOT" / "GOT-S01E10.json"
    result = evaluate_file(path)
    assert result.cues == 634
    assert result.automatic == pytest.approx(0.940, abs=0.002)
    assert result.ours >= result.automatic


def test_reordered_scene_costs_only_that_scene():
    # script order: A B C D; the film plays A C B D (scene B moved after C)
    scenes = {name: [f"{name} line {k} with words {name}{k}a {name}{k}b {name}{k}c" for k in range(4)]
              for name in "ABCD"}
    lines = scenes["A"] + scenes["B"] + scenes["C"] + scenes["D"]
    cues = scenes["A"] + scenes["C"] + scenes["B"] + scenes["D"]
    result = align_cues_to_lines(cues, lines)
    assert result.cue_to_line == sorted(result.cue_to_line)                   # still monotonic
    assert result.cue_to_line[:4] == [0, 1, 2, 3] and result.cue_to_line[-4:] == [12, 13, 14, 15]
    matched = result.line_matched
    assert all(matched[:4]) and all(matched[12:])                              # A and D unaffected
    assert sum(matched[4:12]) == 4                                             # one of B / C kept
