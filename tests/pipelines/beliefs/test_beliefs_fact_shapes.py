"""Sentence shapes the `asymmetry` fact reader now reads: screenplay prose that names
the place first, "there's", "has got", a thing spotted somewhere, actions chained by commas;
and sentences not cut at a title or an initial ("Mrs. Mulwray")."""

from __future__ import annotations

import pytest

from pipelines.beliefs.asymmetry.cues import NameIndex
from pipelines.beliefs.asymmetry.facts import read_facts
from pipelines.beliefs.asymmetry.film import _direction_event
from pipelines.beliefs.asymmetry.tracker import EventIn
from pipelines.beliefs.rules.claims import story_claims
from pipelines.beliefs.text import split_sentences

NAMES = NameIndex({"GITTES": [], "EVELYN": [], "MULWRAY": [], "MRS. MULWRAY": [], "SOPHIE": []})


def _read(sentence: str) -> list[tuple]:
    return [(f.subject, f.slot, f.value, f.negated) for f in read_facts(sentence, NAMES)]


@pytest.mark.parametrize(
    "sentence, expected",
    [
        (
            "On the desk is a framed, tinted photo of Evelyn in riding clothes.",
            [("framed, tinted photo of evelyn", "location", "desk", False)],
        ),
        (
            "In the open drawer are the photos of Mulwray and the girl.",
            [("photos of mulwray", "location", "open drawer", False)],
        ),
        ("Inside the safe lies the ledger.", [("ledger", "location", "safe", False)]),
        (
            "There's a waterlogged drunk in the morgue.",
            [("waterlogged drunk", "location", "morgue", False)],
        ),
        (
            "There is no gun in the glove compartment.",
            [("gun", "location", "glove compartment", True)],
        ),
        (
            "Gittes has got the photographs in his office.",
            [("photographs", "holder", "GITTES", False)],
        ),
        ("Gittes spots a card tray on the desk.", [("card tray", "location", "desk", False)]),
        (
            "Gittes pulls out a cigarette case, offers Sophie one.",
            [("cigarette case", "holder", "GITTES", False)],
        ),
    ],
)
def test_common_shapes_that_state_where_a_thing_is_or_who_has_it(sentence, expected):
    assert _read(sentence) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "There's nothing in the safe.",  # nothing in particular
        "There are people milling around.",
        "In the morning it is cold.",
        "Gittes nods, his face grim.",  # "his" is no verb: one clause, no fact
    ],
)
def test_shapes_that_state_nothing_stay_unread(sentence):
    assert _read(sentence) == []


def test_a_title_or_an_initial_does_not_end_a_sentence():
    assert split_sentences("Gittes sits next to Mrs. Mulwray. She nods.") == [
        "Gittes sits next to Mrs. Mulwray.",
        "She nods.",
    ]
    assert split_sentences("J.J. Gittes waits. Hollis I. Mulwray comes in.") == [
        "J.J. Gittes waits.",
        "Hollis I. Mulwray comes in.",
    ]
    assert split_sentences("No. He's cold.") == ["No.", "He's cold."]
    # a spoken line keeps its addressee's title: no "May I speak frankly, Mrs." claim
    claims = story_claims(
        "May I speak frankly, Mrs. Mulwray? Your husband is a busy man.", "GITTES", ["EVELYN"]
    )
    assert all(not c.endswith("Mrs.") for c in claims)


def test_mrs_mulwray_in_a_direction_is_no_sentence_about_mulwray():
    base = EventIn("e_001_1", 1, "", frozenset({"GITTES", "MRS. MULWRAY"}))
    event = _direction_event(base, "Mrs. Mulwray is a widow. She hesitates.", NAMES, [])
    assert [(f.subject, f.slot) for f in event.facts] == [("MRS. MULWRAY", "is")]


def test_he_after_a_sign_or_a_photo_is_the_last_person_shown():
    base = EventIn("e_014_1", 14, "", frozenset({"GITTES"}))
    last: list[str] = []
    _direction_event(base, "Gittes waits in the hall.", NAMES, last)
    _direction_event(base, '"HOLLIS I. MULWRAY CHIEF ENGINEER"', NAMES, last)
    _direction_event(
        base, "He studies the photos of Mulwray. He enters an outer office.", NAMES, last
    )
    (moved,) = [f for f in base.facts if f.slot == "location"]
    assert (moved.subject, moved.value) == ("GITTES", "outer office")
