"""Fountain parser: the reference parser's Big Fish positions and the spec's feature fixtures."""

from __future__ import annotations

import pytest

from pipelines.preprocess import parse_fountain, parse_fountain_elements

# nyousefi/Fountain BigFishTests, as listed in ../shared/data/SOURCES.md §4b (index -> type).
BIG_FISH_POSITIONS = {
    "Scene Heading": [11, 17, 31, 50],
    "Character": [6, 9, 13, 19, 39],
    "Dialogue": [7, 10, 14, 16, 20, 24],
    "Parenthetical": [15, 23, 40, 70],
    "Transition": [209],
    "Page Break": [1],
    "Action": [0, 3, 38],
}


@pytest.fixture
def big_fish(shared_data):
    path = shared_data / "screenplays" / "fountain-nyousefi" / "Big Fish.fountain"
    return parse_fountain_elements(path.read_text(encoding="utf-8"))


@pytest.mark.realdata
@pytest.mark.parametrize("kind,positions", sorted(BIG_FISH_POSITIONS.items()))
def test_big_fish_element_positions_match_reference_parser(big_fish, kind, positions):
    assert [big_fish.elements[i].type for i in positions] == [kind] * len(positions)


@pytest.mark.realdata
def test_big_fish_title_page_has_six_entries_and_three_note_lines(big_fish):
    assert [key for key, _ in big_fish.title_page] == [
        "Title",
        "Credit",
        "Author",
        "Source",
        "Notes",
        "Copyright",
    ]
    notes = dict(big_fish.title_page)["Notes"]
    assert notes.split("\n") == [
        "FINAL PRODUCTION DRAFT",
        "includes post-production dialogue",
        "and omitted scenes",
    ]


@pytest.mark.realdata
def test_big_fish_to_table15_scenes(big_fish, shared_data):
    text = (shared_data / "screenplays" / "fountain-nyousefi" / "Big Fish.fountain").read_text(
        encoding="utf-8"
    )
    screenplay = parse_fountain(text)
    first_heading = next(s for s in screenplay.scenes if s.heading)
    assert first_heading.heading == "INT.  WILL’S BEDROOM - NIGHT (1973)"
    assert first_heading.time_of_day == "NIGHT (1973)"
    assert first_heading.location == "WILL’S BEDROOM"
    # the opening (before any heading) has Edward's narration with the V.O. extension stripped
    opening = screenplay.scenes[0]
    assert opening.heading is None and opening.dialogue[0].character == "EDWARD"
    assert opening.dialogue[0].extensions == ("V.O.",)
    assert screenplay.title == "Big Fish"


def test_dialogue_parenthetical_and_extensions():
    doc = parse_fountain_elements(
        "ADAM\nI like to write.\n\nEVE (O.S.)\n(nervous)\nWhat kind of writing?\n"
    )
    assert [e.type for e in doc.elements] == [
        "Character",
        "Dialogue",
        "Character",
        "Parenthetical",
        "Dialogue",
    ]
    screenplay = parse_fountain("INT. ROOM - DAY\n\nEVE (O.S.)\n(nervous)\nWhat kind?\n")
    event = screenplay.scenes[0].events[0]
    assert (event.character, event.parenthetical, event.extensions, event.text) == (
        "EVE",
        "nervous",
        ("O.S.",),
        "What kind?",
    )
    assert event.to_table15() == "- DIALOGUE | EVE | nervous | What kind?"


def test_dual_dialogue_marks_second_cue():
    doc = parse_fountain_elements("ADAM\nYes.\n\nEVE ^\nNo.\n")
    assert [(e.type, e.dual) for e in doc.elements] == [
        ("Character", False),
        ("Dialogue", False),
        ("Character", True),
        ("Dialogue", False),
    ]
    assert doc.elements[2].text == "EVE"


def test_forced_elements():
    doc = parse_fountain_elements(
        "!BANG\nBANG\nBANG\n\n@McDUCK\nI'm vegan.\n\n.KITCHEN\n\n> BURN TO WHITE.\n"
    )
    assert [e.type for e in doc.elements] == [
        "Action",
        "Character",
        "Dialogue",
        "Scene Heading",
        "Transition",
    ]
    assert doc.elements[0].text == "BANG\nBANG\nBANG"
    assert doc.elements[1].text == "McDUCK"
    assert doc.elements[3].text == "KITCHEN"


def test_notes_boneyard_sections_synopses_page_breaks_centered():
    text = (
        "# Act One\n\n= The first act.\n\nA line.\n\n[[A note\n  over two lines.]]\n\n/* "
        "hidden\nboneyard */\n\n"
        "This is an [[internal]] note.\n\n===\n\n> THE END <\n"
    )
    doc = parse_fountain_elements(text)
    assert [e.type for e in doc.elements] == [
        "Section Heading",
        "Synopsis",
        "Action",
        "Comment",
        "Action",
        "Page Break",
        "Action",
    ]
    assert doc.elements[0].depth == 1 and doc.elements[6].centered
    assert doc.roles[10] == doc.roles[11] == "boneyard"
    screenplay = parse_fountain(text)
    assert [e.text for e in screenplay.scenes[0].events] == [
        "A line.",
        "This is an note.",
        "THE END",
    ]


def test_transitions_need_blank_lines_and_no_trailing_space():
    doc = parse_fountain_elements("CUT TO:\n\nSMASH CUT TO:\n\nCUT TO:  \n\nINT. HOUSE - DAY\n")
    assert [e.type for e in doc.elements] == ["Transition", "Transition", "Action", "Scene Heading"]


def test_scene_numbers_are_split_off():
    doc = parse_fountain_elements(
        "INT. HOUSE - DAY #1A#\n\nEXT. YARD - NIGHT - FLASHBACK (1944) #110A#\n"
    )
    assert [(e.text, e.scene_number) for e in doc.elements] == [
        ("INT. HOUSE - DAY", "1A"),
        ("EXT. YARD - NIGHT - FLASHBACK (1944)", "110A"),
    ]


def test_lowercase_scene_heading_and_character_with_lowercase_extension():
    doc = parse_fountain_elements("int. house - day\n\nEVE (cont'd)\nI think so.\n")
    assert [e.type for e in doc.elements] == ["Scene Heading", "Character", "Dialogue"]


@pytest.mark.realdata
@pytest.mark.parametrize(
    "name",
    [
        "Simple.fountain",
        "Dialogue.fountain",
        "SceneHeaders.fountain",
        "Transitions.fountain",
        "Boneyard.fountain",
        "Notes.fountain",
    ],
)
def test_reference_fixtures_parse_and_account_for_every_line(shared_data, name):
    text = (shared_data / "screenplays" / "fountain-nyousefi" / name).read_text(encoding="utf-8")
    doc = parse_fountain_elements(text)
    non_blank = {
        n for n, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1) if line.strip()
    }
    assert non_blank <= set(doc.roles)
