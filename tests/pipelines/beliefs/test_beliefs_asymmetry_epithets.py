"""Epithets in the `asymmetry` backend (docs/logs/2026-12-04-beliefs-asymmetry.md, "Why revision
recall is zero", class 2): "your birdwatcher" and "your girl" name a character only by what the film
said of them before: a predicate nominal ("You're the ferryman") or a parent addressed as "Mum"."""

from __future__ import annotations

from pipelines.beliefs.asymmetry.cues import NameIndex
from pipelines.beliefs.asymmetry.epithets import Epithets
from tests.support.asymmetry_beliefs import beliefs, of

NAMES = NameIndex({c: [] for c in ("OTTO", "PIA", "LENA", "UDO")})


def test_a_predicate_nominal_said_before_names_its_character_at_a_claims_start():
    epithets = Epithets(NAMES)
    assert epithets.resolve("Pia's ferryman is police.") == "Pia's ferryman is police."
    epithets.note_claim("Lena is the ferryman.")
    assert epithets.resolve("Pia's ferryman is police.") == "Lena is police."
    assert epithets.resolve("The ferryman left early.") == "Lena left early."
    # only the subject: "Udo is the ferryman" stays a claim about Udo
    assert epithets.resolve("Udo is the ferryman.") == "Udo is the ferryman."


def test_an_epithet_two_characters_answer_to_or_a_negated_one_names_nobody():
    epithets = Epithets(NAMES)
    epithets.note_claim("Lena is not a ferryman.")
    epithets.note_claim("Otto is old.")
    assert epithets.resolve("The ferryman is police.") == "The ferryman is police."
    epithets.note_claim("Lena is a ferryman.")
    epithets.note_claim("Udo is the ferryman.")
    assert epithets.resolve("The ferryman is police.") == "The ferryman is police."


def test_a_parent_addressed_as_mum_has_the_speaker_as_their_girl():
    epithets = Epithets(NAMES)
    epithets.note_line("The fire is warm, Mum. I am cold.", "PIA", ["LENA"])
    epithets.note_line("Dad, the fire is warm.", "UDO", ["OTTO", "LENA"])  # two listeners
    assert epithets.resolve("Lena's girl has the key.") == "Pia has the key."
    assert epithets.resolve("Pia's mother has the key.") == "Lena has the key."
    assert epithets.resolve("Otto's boy has the key.") == "Otto's boy has the key."


def test_a_thing_said_to_be_with_an_epithet_revises_where_its_carrier_thought_it_was():
    lines = [
        (0, "direction", None, "OTTO leaves the shed with the lantern under his coat."),
        (1, "direction", None, "PIA and LENA sit by the fire."),
        (1, "dialogue", "PIA", "The fire is warm, Mum."),
        (2, "direction", None, "OTTO and LENA meet on the quay."),
        (2, "dialogue", "OTTO", "Your girl has my lantern, Lena."),
    ]
    rows = beliefs(lines, {0: "SHED", 1: "HOUSE", 2: "QUAY"})
    carried, said = of(rows, "OTTO", "lantern")
    assert said["content"] == "Pia has Otto's lantern."
    assert said["kind"] == "revised" and said["revises"] == carried["belief_id"]
    # nothing narrated gives Pia the lantern, so by the narration the claim is false (rule 3)
    (told,) = of(rows, "LENA", "lantern")
    assert told["content"] == "Pia has Otto's lantern." and told["source_character"] == "OTTO"
