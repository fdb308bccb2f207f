"""The `asymmetry` backend's film-dialogue rules, on events built here: a speaker holds
what they say unless hindsight shows a lie, a listener is not told what they did or are, spoken
He / She / It resolve to the scene's last person or thing, on-screen blocking is presence and
not a belief, a past whereabouts is no location, one sentence read twice is one record."""

from __future__ import annotations

from pipelines.beliefs.asymmetry.cues import NameIndex
from pipelines.beliefs.asymmetry.facts import Fact
from pipelines.beliefs.asymmetry.film import _blocking, claim_facts
from pipelines.beliefs.asymmetry.refs import Referents, genders
from pipelines.beliefs.asymmetry.same import SameState
from pipelines.beliefs.asymmetry.tracker import AsymmetryTracker, EventIn
from tests.support.asymmetry_stories import hashed

NAMES = NameIndex({"ANNA": ["Anna"], "BEN": ["Ben"], "CARA": ["Cara"]})
EVERYONE = frozenset({"ANNA", "BEN", "CARA"})


def said(n: int, scene: int, speaker: str, text: str, listeners=EVERYONE) -> EventIn:
    """A spoken line: `speaker` tells `text` to `listeners` and voices it."""
    heard = frozenset(listeners) - {speaker}
    return EventIn(
        f"e_{scene:03d}_{n}",
        scene,
        text,
        heard | {speaker},
        teller=speaker,
        listeners=heard,
        claims=claim_facts(text, NAMES),
        voiced=True,
    )


def replay(*events: EventIn) -> list[dict]:
    facts = [f for e in events for f in (*e.facts, *e.claims)]
    tracker = AsymmetryTracker(SameState(facts, set(NAMES.canonical.values()), hashed), "film")
    for event in events:
        tracker.step(event)
    return tracker.records()


def of(rows: list[dict], holder: str) -> list[dict]:
    return [r for r in rows if r["holder"] == holder]


def test_a_speaker_holds_what_they_say_and_the_listener_is_told_it():
    rows = replay(said(1, 0, "BEN", "The key is in the box.", {"CARA"}))
    (ben,) = of(rows, "BEN")
    (cara,) = of(rows, "CARA")
    assert ben["kind"] == "inferred" and ben["source_character"] is None
    assert ben["basis"] == ["e_000_1"] and ben["confidence"] == "medium"
    assert cara["kind"] == "told" and cara["source_character"] == "BEN" and cara["believed"]


def test_saying_the_opposite_later_without_learning_anything_unmasks_a_lie():
    rows = replay(
        said(1, 0, "BEN", "The key is in the box.", {"CARA"}),
        said(1, 1, "BEN", "The key is not in the box.", {"ANNA"}),
    )
    (ben,) = of(rows, "BEN")  # the first line was never his belief
    assert "not" in ben["content"] and ben["kind"] == "inferred" and ben["revises"] is None
    (cara,) = of(rows, "CARA")
    assert cara["is_false"] is True  # told a lie, and the story's last word contradicts it


def test_a_speaker_who_was_told_otherwise_in_between_revises_instead():
    rows = replay(
        said(1, 0, "BEN", "The key is in the box.", {"CARA"}),
        said(1, 1, "ANNA", "The key is not in the box.", {"BEN"}),
        said(1, 2, "BEN", "The key is not in the box.", {"CARA"}),
    )
    ben = of(rows, "BEN")
    first = next(r for r in ben if r["scene_index"] == 0)
    assert first["is_false"] is True and first["revised_at_scene"] == 1
    assert any(r["revises"] == first["belief_id"] for r in ben)
    cara = of(rows, "CARA")
    assert [r["kind"] for r in cara] == ["told", "revised"] and cara[0]["is_false"] is True


def test_nobody_is_told_what_they_did_and_a_false_word_about_oneself_is_a_lie():
    rows = replay(
        said(1, 0, "BEN", "Cara was first down there.", {"CARA"}),
        said(1, 1, "CARA", "Cara is a gardener.", {"ANNA"}),
        said(1, 2, "BEN", "Cara is not a gardener.", {"ANNA"}),
    )
    assert [r["content"] for r in of(rows, "CARA")] == []
    anna = of(rows, "ANNA")
    assert anna[0]["content"] == "Cara is a gardener." and anna[0]["is_false"] is True


def test_spoken_pronouns_resolve_to_the_last_person_or_thing_of_the_scene():
    refs = Referents(NameIndex({"MARA": [], "RUTH": []}))
    assert refs.resolve("Tell me the lamp failed.", "MARA", ["RUTH"]) == "Tell me the lamp failed."
    assert refs.resolve("It didn't fail. It's November.", "RUTH", ["MARA"]) == (
        "The lamp didn't fail. It's November."  # a copular "it" is a dummy subject
    )
    text = refs.resolve("The man you found was Daniel Ashe. He was a diver.", "RUTH", ["MARA"])
    assert text.endswith("Daniel Ashe was a diver.")
    refs.mention("Mara walks in with the boat log under her coat.")
    assert refs.resolve("It's been wet since the storm.", "RUTH", []).startswith(
        "The boat log has been wet"
    )
    # the speaker and the addressee are never "he" / "she"
    assert refs.resolve("She knows.", "RUTH", ["MARA"]) == "Daniel Ashe knows."


def test_blocking_is_presence_but_entering_and_leaving_are_state():
    event = EventIn("e_000_1", 0, "", frozenset({"ANNA"}))
    sits = Fact("ANNA", "location", "bar", False, "Anna sits at the bar.")
    leaves = Fact("ANNA", "location", "office", True, "Anna leaves the office.")
    enters = Fact("ANNA", "location", "cellar", False, "Anna enters the cellar.")
    elsewhere = Fact("BEN", "location", "bar", False, "Ben sits at the bar.")
    assert _blocking(sits, event)
    assert not any(_blocking(f, event) for f in (leaves, enters, elsewhere))


def test_where_someone_was_is_a_claim_and_where_a_thing_is_a_location():
    (past,) = claim_facts("Ben was in the cellar.", NAMES)
    assert past.slot == "claim"
    (thing,) = claim_facts("The key is in the cellar.", NAMES)
    assert (thing.subject, thing.slot, thing.value) == ("key", "location", "cellar")


def test_one_sentence_read_as_two_facts_is_one_record():
    text = "Ben took the key out of the office and carried the key to the inn."
    rows = replay(said(1, 0, "ANNA", text, {"CARA"}))
    assert [r["content"] for r in of(rows, "CARA")] == [text]


def test_he_and_she_follow_the_gender_the_directions_give_a_character():
    names = NameIndex({"MARA": [], "TOMAS": [], "RUTH": []})
    directions = [
        "Mara turns the man's face. She goes still.",
        "TOMAS leaves with the log under his coat.",
        "Ruth and Mara talk. He listens.",  # names two: no vote
    ]
    gender = genders(directions, names)
    assert gender == {"MARA": "she", "TOMAS": "he"}
    refs = Referents(names, gender)
    refs.mention("Mara looks at Tomas.")
    assert refs.resolve("She knows.", "RUTH", []) == "Mara knows."
    assert refs.resolve("He knows.", "RUTH", []) == "Tomas knows."


def test_a_speaker_is_not_told_what_they_did_themselves():
    rows = replay(said(1, 0, "BEN", "Cara did not take the key.", {"CARA", "ANNA"}))
    assert of(rows, "CARA") == [] and len(of(rows, "ANNA")) == 1


def test_what_a_speaker_saw_is_their_belief_but_what_they_did_is_not_recorded():
    rows = replay(
        said(1, 0, "BEN", "Ben saw Anna take the key.", {"CARA"}),
        said(2, 0, "BEN", "Ben paid the guard at the gate.", {"CARA"}),
    )
    assert [r["content"] for r in of(rows, "BEN")] == ["Ben saw Anna take the key."]
    assert len(of(rows, "CARA")) == 2


def test_a_capitalised_place_is_not_a_person():
    refs = Referents(NameIndex({"MARA": [], "KIT": []}))
    refs.mention("The man you found was Daniel Ashe, on the rocks below Gull Point.")
    assert refs.resolve("He was a diver.", "MARA", ["KIT"]) == "Daniel Ashe was a diver."


def test_nobody_is_told_what_they_took_or_have():
    rows = replay(said(1, 0, "BEN", "Cara took the key.", {"CARA", "ANNA"}))
    assert of(rows, "CARA") == []  # she knows what she took (rule 3)
    assert {r["kind"] for r in of(rows, "ANNA")} == {"told"} and len(of(rows, "ANNA")) == 1
    # and what a speaker says they have is about themselves, not their belief (rule 5)
    rows = replay(said(1, 0, "CARA", "Cara has the key.", {"ANNA"}))
    assert of(rows, "CARA") == [] and len(of(rows, "ANNA")) == 1


def test_a_contraction_is_two_words_for_the_asymmetry_reading_only():
    from pipelines.beliefs.rules.claims import story_claims

    line = "I did. And you're the birdwatcher. June told me."
    assert story_claims(line, "MARA", ["RUTH"], contractions=True) == ["Ruth is the birdwatcher."]
    assert story_claims("The log's gone.", "TOMAS", ["RUTH"], contractions=True) == [
        "The log's gone."
    ]
    assert story_claims("He's cold.", "MARA", ["KIT"], contractions=True) == []  # three words
    assert story_claims(line, "MARA", ["RUTH"]) == []  # the rules backend's reading is kept


def test_a_role_description_in_the_cast_is_not_named_by_its_common_words():
    """With THE MAN WITH THE PISTOL in the cast, "The room is dark." named that character (its
    single words "the", "man" were indexed as names) and the next "He" resolved to it."""
    names = NameIndex({"THE MAN WITH THE PISTOL": [], "MARA": [], "TOMAS": [], "RUTH": []})
    assert names.names_in("The room is dark. A man waits.") == []
    assert names.names_in("The man with the pistol waits.") == ["THE MAN WITH THE PISTOL"]
    refs = Referents(names)
    refs.mention("Tomas comes in from the rain. The room is dark.")
    assert refs.resolve("He is soaked.", "MARA", ["RUTH"]) == "Tomas is soaked."
    # a person's name still answers to its single words: "Voss" is MARA VOSS
    assert NameIndex({"MARA VOSS": []}).names_in("Voss nods.") == ["MARA VOSS"]
