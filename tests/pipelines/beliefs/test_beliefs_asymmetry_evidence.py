"""The `asymmetry` backend reads an old state it used to miss
(docs/logs/2026-12-04-beliefs-asymmetry.md, "Why revision recall is zero", class 3), on screenplays
built here: a thing carried away by whoever goes with it, a where-question answered by a place
alone, "the X's gone" said where it was, and a document read in voice-over."""

from __future__ import annotations

from pipelines.beliefs.asymmetry.cues import NameIndex
from pipelines.beliefs.asymmetry.facts import read_facts
from tests.support.asymmetry_beliefs import CAST, beliefs, of

CARRIED = [
    (0, "direction", None, "OTTO and PIA stand in the shed. The lantern is on the shelf."),
    (1, "direction", None, "OTTO leaves the shed with the lantern under his coat."),
]


def test_a_thing_carried_away_moves_with_its_carrier():
    rows = beliefs(CARRIED, {0: "SHED", 1: "SHED"})
    (pia,) = of(rows, "PIA", "lantern")
    assert pia["kind"] == "witnessed" and pia["is_false"] is True  # she did not see it go
    otto_shelf, otto_carried = of(rows, "OTTO", "lantern")
    assert otto_carried["revises"] == otto_shelf["belief_id"]
    assert otto_shelf["revised_at_scene"] == 1 and not otto_carried["is_false"]


def test_going_with_a_person_or_sitting_with_a_thing_carries_nothing():
    names = NameIndex({c: [] for c in CAST})
    assert not [f for f in read_facts("Otto walks with the man to the quay.", names)]
    sitting = read_facts("Otto sits at the bar with a whisky.", names)
    assert not [f for f in sitting if f.slot == "holder"]
    (held,) = [f for f in read_facts("Otto walks out with the key.", names) if f.slot == "holder"]
    assert (held.subject, held.value) == ("key", "OTTO")


ASKED = [
    (0, "direction", None, "OTTO stands in the shed."),
    (1, "direction", None, "OTTO leaves the shed with the lantern under his coat."),
    (2, "direction", None, "PIA and LENA sit at a table."),
    (2, "dialogue", "LENA", "And where does Otto keep the lantern?"),
    (2, "dialogue", "PIA", "In the shed, by the door. Everyone knows that."),
    (3, "direction", None, "LENA and OTTO wait by the gate."),
    (3, "dialogue", "OTTO", "The lantern's gone."),
]


def test_a_place_that_answers_a_where_question_is_where_the_thing_is():
    rows = beliefs(ASKED, {0: "SHED", 1: "SHED", 2: "PUB", 3: "SHED"})
    (pia,) = [r for r in of(rows, "PIA", "shed") if r["scene_index"] == 2]
    assert pia["content"] == "The lantern is in the shed, by the door."
    assert pia["kind"] == "inferred" and pia["is_false"] is True  # Otto took it in scene 1
    told = of(rows, "LENA", "in the shed")[0]
    assert told["kind"] == "told" and told["source_character"] == "PIA" and told["is_false"]


def test_gone_said_where_a_thing_was_revises_who_was_told_it_is_there():
    rows = beliefs(ASKED, {0: "SHED", 1: "SHED", 2: "PUB", 3: "SHED"})
    told = of(rows, "LENA", "in the shed")[0]
    (gone,) = of(rows, "LENA", "gone")
    assert gone["kind"] == "revised" and gone["revises"] == told["belief_id"]
    assert gone["source_character"] == "OTTO" and told["revised_at_scene"] == 3


def test_only_the_next_line_by_someone_else_answers_a_where_question():
    lines = [
        (0, "direction", None, "PIA and LENA sit at a table."),
        (0, "dialogue", "LENA", "Where is the lantern?"),
        (0, "direction", None, "PIA shrugs."),
        (0, "dialogue", "PIA", "In the shed, by the door."),
    ]
    rows = beliefs(lines, {0: "PUB"})
    assert not [r for r in rows if r["content"].startswith("The lantern is")]


READING = ("reading", "voice_over")  # MARA (V.O.) (reading): parenthetical, voice mode


def test_a_document_read_in_voice_over_is_seen_by_its_reader_only():
    lines = [
        (0, "direction", None, "PIA and LENA sit in the attic. PIA opens a diary."),
        (0, "dialogue", "PIA", "June the first. Paid the ferryman, ten pounds.", *READING),
        (0, "dialogue", "LENA", "The key is under the mat.", "on the phone", "voice_over"),
    ]
    rows = beliefs(lines, {0: "ATTIC"})
    (read,) = of(rows, "PIA", "ferryman")
    assert read["kind"] == "witnessed" and read["source_character"] is None
    assert read["basis"] == ["e_000_2"] and not read["is_false"]
    assert not of(rows, "LENA", "ferryman")  # a V.O. reading is not heard by those present
    assert not of(rows, "PIA", "key")  # a phone voice-over is still not read


def test_a_sentence_read_as_two_facts_keeps_the_record_that_revises():
    # Otto only had the key (a holder); giving it away is a holder and a location: the holder
    # revises, so that is the sentence's one record
    lines = [
        (0, "direction", None, "OTTO has the key."),
        (1, "direction", None, "OTTO gives PIA the key."),
    ]
    had, gave = of(beliefs(lines, {0: "SHED", 1: "SHED"}), "OTTO", "key")
    assert gave["scene_index"] == 1 and gave["revises"] == had["belief_id"]
    assert had["revised_at_scene"] == 1
