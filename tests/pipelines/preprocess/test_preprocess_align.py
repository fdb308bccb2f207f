"""Alignment (LF-VideoQA App. C rule), scene timing and first-spoken names (align-eval:
test_align_eval.py)."""

from __future__ import annotations

import pytest

from pipelines.preprocess import parse_fountain
from pipelines.preprocess.align import align_cues_to_lines
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
        "At the harbour,",
        "checking the boats like every night.",  # one line split over two cues
        "- Nobody saw you at the harbour. - Then nobody was "
        "looking.",  # two lines merged in one cue
        "You're lying to me, Tomas.",  # line 4 was cut
    ]
    result = align_cues_to_lines(cues, LINES)
    assert result.cue_to_line == [0, 1, 1, 2, 5]
    assert result.line_matched == [True, True, True, True, False, True]  # both merged lines heard


def test_two_speaker_cue_belongs_to_the_first_speakers_line_and_covers_both():
    lines = ["Where is the harbour master?", "Will you shut up?", "Who have we here?"]
    cues = ["- Where's the harbour master? - Will you shut up?", "Who have we here?"]
    result = align_cues_to_lines(cues, lines)
    assert result.cue_to_line == [0, 2]
    assert result.line_matched == [True, True, True]


def test_split_turns():
    from pipelines.preprocess.align import split_turns

    assert split_turns("- No. Really?\n- I'm afraid so.") == ["No. Really?", "I'm afraid so."]
    assert split_turns("...but I do. - no, I meant every word.") == [
        "...but I do.",
        "no, I meant every word.",
    ]
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
    cues = _cues(
        [
            (10.0, 12.0, "Where were you last night?"),
            (12.5, 15.0, "At the harbour, checking the boats."),
            (40.0, 42.0, "Ben is lying. I know it."),
            (42.5, 44.0, "Then prove it, Anna."),
        ]
    )
    timing = time_film(screenplay, cues)
    sources = [t.time_source for t in timing.scene_times]
    assert sources == ["matched", "interpolated", "matched"]
    assert (timing.scene_times[0].start_s, timing.scene_times[0].end_s) == (10.0, 15.0)
    middle = timing.scene_times[1]
    assert middle.start_s == 15.0 and middle.end_s == 40.0  # fills the gap between its neighbours
    assert timing.line_times[2] is None  # the cut line has no time
    assert timing.share_scenes_matched == pytest.approx(2 / 3)


def test_subtitles_of_another_film_fail_clearly():
    screenplay = parse_fountain(FILM)
    cues = _cues(
        [
            (1.0, 2.0, "The ships hung in the sky in much the same way that bricks don't."),
            (3.0, 4.0, "Forty-two."),
        ]
    )
    with pytest.raises(AlignmentFailed, match=r"0% of 5 dialogue lines match"):
        time_film(screenplay, cues)


def test_first_spoken_names():
    cues = _cues(
        [
            (1.0, 2.0, "Hello."),
            (5.0, 6.0, "Then prove it, Anna."),
            (9.0, 10.0, "Mr. Reyes!"),
            (12.0, 13.0, "Anna again"),
        ]
    )
    found = first_spoken_times(
        {"ANNA": ["ANNA"], "TOMAS REYES": ["TOMAS REYES", "TOMAS"], "CARL": ["CARL"]},
        cues,
        frozenset({"mr"}),
    )
    assert found == {"ANNA": 5.0, "TOMAS REYES": 9.0}


def test_reordered_scene_costs_only_that_scene():
    # script order: A B C D; the film plays A C B D (scene B moved after C)
    scenes = {
        name: [f"{name} line {k} with words {name}{k}a {name}{k}b {name}{k}c" for k in range(4)]
        for name in "ABCD"
    }
    lines = scenes["A"] + scenes["B"] + scenes["C"] + scenes["D"]
    cues = scenes["A"] + scenes["C"] + scenes["B"] + scenes["D"]
    result = align_cues_to_lines(cues, lines)
    assert result.cue_to_line == sorted(result.cue_to_line)  # still monotonic
    assert result.cue_to_line[:4] == [0, 1, 2, 3] and result.cue_to_line[-4:] == [12, 13, 14, 15]
    matched = result.line_matched
    assert all(matched[:4]) and all(matched[12:])  # A and D unaffected
    assert sum(matched[4:12]) == 4  # one of B / C kept


# -- cues with no script words (the rule lives in the aligner, so ingest stores it) --

WORDLESS_LINES = ["Where were you last night?", "Nobody saw you at the harbour."]
WORDLESS_CUES = ["Where were you last night?", "Hey!", "Nobody saw you at the harbour."]


def test_a_wordless_cue_takes_the_line_of_its_nearer_neighbour_in_time():
    near_the_second = [(0.0, 2.0), (20.0, 21.0), (21.5, 24.0)]
    moved = align_cues_to_lines(WORDLESS_CUES, WORDLESS_LINES, cue_times=near_the_second)
    assert moved.cue_to_line == [0, 1, 1]
    near_the_first = [(0.0, 2.0), (2.2, 3.0), (21.5, 24.0)]
    stays = align_cues_to_lines(WORDLESS_CUES, WORDLESS_LINES, cue_times=near_the_first)
    assert stays.cue_to_line == [0, 0, 1]
    # the line matches and coverage are the DP's either way; scored cues never move
    assert moved.line_matched == stays.line_matched == [True, True]
    assert moved.cue_score == stays.cue_score and moved.cue_score[1] == 0.0


def test_cue_times_must_cover_every_cue():
    with pytest.raises(ValueError, match="cue_times has 2 entries for 3 cues"):
        align_cues_to_lines(WORDLESS_CUES, WORDLESS_LINES, cue_times=[(0.0, 1.0), (2.0, 3.0)])


def test_time_film_stores_the_neighbour_rule():
    screenplay = parse_fountain(FILM)
    cues = _cues(
        [
            (10.0, 12.0, "Where were you last night?"),
            (12.5, 15.0, "At the harbour, checking the boats."),
            (38.0, 39.5, "Hmm."),  # an ad-lib just before the inn scene's first line
            (40.0, 42.0, "Ben is lying. I know it."),
            (42.5, 44.0, "Then prove it, Anna."),
        ]
    )
    # The DP alone parks the ad-lib on the quay scene's line it passes over.
    untimed = align_cues_to_lines([c.text for c in cues], [e.text for e in _dialogue(screenplay)])
    assert untimed.cue_to_line[2] == 2
    timing = time_film(screenplay, cues)
    inn_first_line = timing.cue_to_line[3]
    assert timing.line_refs[inn_first_line][0] == 2  # scene 3 (the inn)
    assert timing.cue_to_line[2] == inn_first_line  # the ad-lib is stored in the inn scene
    # and the inn scene's span starts with it (the ad-lib is part of the scene it is heard in)
    assert timing.scene_times[2].start_s == 38.0


def _dialogue(screenplay):
    return [e for scene in screenplay.scenes for e in scene.events if e.kind == "dialogue"]
