"""Plain-text (IMSDb-style) screenplay parser: Table 15 output on in-code fixtures and real
scripts."""

from __future__ import annotations

import pytest

from pipelines.preprocess import parse_screenplay_text
from pipelines.preprocess.common import parse_cue, split_heading, strip_scene_numbers

# Built in code: indentation as IMSDb pages have it (action 15, dialogue 25, parenthetical 30,
# cue 37, transitions far right), with scene numbers, a page break inside a speech, CONTINUED
# markers and a page number.
SCRIPT = """\
                                   "THE TEST"

                                by Somebody


               A grey sea at dawn. Gulls wheel over a pier that has seen
               better days.

                                     SARAH (V.O.)
                         I never said that.

     12   INT. DINER - NIGHT                                          12

               Marcus slides into the booth across from Sarah, rain
               dripping from his coat.

                                     MARCUS
                              (quietly)
                         You came.

                                     SARAH
                         I almost didn't. I had a long
                         drive and a longer think.
                                   (MORE)

                                                               34.
     CONTINUED:
                                     SARAH (CONT'D)
                         But here I am.

                                                          CUT TO:

               EXT. PIER - CONTINUOUS

                                     MARCUS (O.S.)
                              (calling out,
                              breathless)
                         Sarah! Wait!
"""

TABLE15 = """\
SCENE 1
Continuation: no
Heading:
Location:
Time:
Characters: SARAH
EVENTS:
- DIRECTION: A grey sea at dawn. Gulls wheel over a pier that has seen better days.
- DIALOGUE | SARAH | - | I never said that.

SCENE 2
Continuation: no
Heading: INT. DINER - NIGHT
Location: DINER
Time: NIGHT
Characters: MARCUS, SARAH
EVENTS:
- DIRECTION: Marcus slides into the booth across from Sarah, rain dripping from his coat.
- DIALOGUE | MARCUS | quietly | You came.
- DIALOGUE | SARAH | - | I almost didn't. I had a long drive and a longer think. But here I am.

SCENE 3
Continuation: no
Heading: EXT. PIER - CONTINUOUS
Location: PIER
Time: CONTINUOUS
Characters: MARCUS
EVENTS:
- DIALOGUE | MARCUS | calling out, breathless | Sarah! Wait!"""


def test_table15_output_exactly():
    assert parse_screenplay_text(SCRIPT).to_table15() == TABLE15


def test_every_nonblank_line_has_a_role():
    screenplay = parse_screenplay_text(SCRIPT)
    lines = SCRIPT.split("\n")
    non_blank = {n for n, line in enumerate(lines, 1) if line.strip()}
    assert non_blank == set(screenplay.line_roles)
    roles = {lines[n - 1].strip(): role for n, role in screenplay.line_roles.items()}
    assert roles['"THE TEST"'] == "title"
    assert (
        roles["(MORE)"] == "more"
        and roles["34."] == "page_number"
        and roles["CONTINUED:"] == "continued"
    )
    assert roles["CUT TO:"] == "transition"


def test_crlf_and_tabs_parse_like_lf_and_spaces():
    crlf = SCRIPT.replace("\n", "\r\n").replace(
        "                                     ", "\t\t\t\t     "
    )
    assert parse_screenplay_text(crlf).to_table15() == TABLE15


def test_flush_left_script_without_indentation():
    text = (
        "INT. KITCHEN - DAY\n\nAnna stirs a pot.\n\nANNA\nSoup again.\n\nBEN (O.C.)\n"
        "(from the hall)\nI heard that.\n"
    )
    scene = parse_screenplay_text(text).scenes[0]
    assert [e.to_table15() for e in scene.events] == [
        "- DIRECTION: Anna stirs a pot.",
        "- DIALOGUE | ANNA | - | Soup again.",
        "- DIALOGUE | BEN | from the hall | I heard that.",
    ]
    assert scene.dialogue[1].extensions == ("O.C.",)


def test_contd_merges_only_across_a_page_break():
    page_break = "INT. ROOM - DAY\n\nANNA\nOne.\n(MORE)\n\nANNA (CONT'D)\nTwo.\n"
    same_page = "INT. ROOM - DAY\n\nANNA\nOne.\n\nANNA (CONT'D)\nTwo.\n"
    assert [e.text for e in parse_screenplay_text(page_break).scenes[0].events] == ["One. Two."]
    assert [e.text for e in parse_screenplay_text(same_page).scenes[0].events] == ["One.", "Two."]


def test_uppercase_action_line_followed_by_blank_is_not_a_cue():
    text = "INT. ROOM - DAY\n\nON THE SCREEN\n\nA man waits.\n\nJACK\nHello.\n"
    events = parse_screenplay_text(text).scenes[0].events
    assert [e.kind for e in events] == ["direction", "direction", "dialogue"]


@pytest.mark.parametrize(
    "heading,expected",
    [
        ("INT. DINER - NIGHT", ("DINER", "NIGHT")),
        ("EXT. CITY HALL – MORNING", ("CITY HALL", "MORNING")),
        ("INT./EXT. CAR - MOVING", ("CAR - MOVING", None)),
        ("I/E HOUSE DAY", ("HOUSE", "DAY")),
        ("INT. WILL'S BEDROOM - NIGHT (1973)", ("WILL'S BEDROOM", "NIGHT (1973)")),
        ("INT. GITTES' OFFICE", ("GITTES' OFFICE", None)),
    ],
)
def test_split_heading(heading, expected):
    assert split_heading(heading) == expected


def test_scene_numbers_and_cues():
    assert strip_scene_numbers("12A  INT. HOUSE - DAY  12A") == "INT. HOUSE - DAY"
    assert parse_cue("EDWARD (V.O.)(CONT'D)") == ("EDWARD", ("V.O.", "CONT'D"))
    assert parse_cue("ETHAN VO") == ("ETHAN", ("VO",))
    assert parse_cue("MRS. MULWRAY") == ("MRS. MULWRAY", ())
    assert parse_cue("CONNECTION TERMINATED.") is None
    assert parse_cue("GROUP. WHICH CHAPTER AND VERSE DO") is None


@pytest.mark.realdata
@pytest.mark.parametrize(
    "name,scenes,dialogue,top",
    [
        ("chinatown", 77, 1120, "GITTES"),
        ("mission_impossible", 205, 646, "ETHAN"),
        ("birthday_girl", 178, 589, "JOHN"),
    ],
)
def test_real_screenplays(shared_data, name, scenes, dialogue, top):
    path = shared_data / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles" / f"{name}.txt"
    screenplay = parse_screenplay_text(path.read_text(encoding="utf-8"))
    assert len(screenplay.scenes) == pytest.approx(scenes, rel=0.03)
    assert screenplay.dialogue_count == pytest.approx(dialogue, rel=0.03)
    speakers = [e.character for _, e in screenplay.events if e.kind == "dialogue"]
    assert max(set(speakers), key=speakers.count) == top
    assert all(e.text for _, e in screenplay.events)


@pytest.mark.realdata
def test_chinatown_opening_matches_storyvideoqa_parse(shared_data):
    """The first scene has no slugline (its action is the scene) and Curly's voice speaks in it."""
    path = (
        shared_data / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles" / "chinatown.txt"
    )
    screenplay = parse_screenplay_text(path.read_text(encoding="utf-8"))
    first, second = screenplay.scenes[:2]
    assert first.heading is None and first.events[0].text.startswith("FULL SCREEN PHOTOGRAPH")
    assert first.dialogue[0].to_table15() == "- DIALOGUE | CURLY'S VOICE | crying out | Oh, no."
    assert second.heading == "INT. GITTES' OFFICE"
    assert second.dialogue[0].text == (
        "All right, enough is enough. You can't eat the Venetian blinds, "
        "Curly. I just had 'em installed on Wednesday."
    )
