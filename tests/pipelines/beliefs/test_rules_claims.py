"""The rules backend's claim extraction: a heard line becomes a claim about the story,
in names, or nothing — never the quote itself."""

from pipelines.beliefs.rules.claims import story_claims
from pipelines.beliefs.text import display_name


def test_first_person_becomes_the_speakers_name():
    assert story_claims("I'm here for the birds.", "RUTH", ["JUNE"]) == [
        "Ruth is here for the birds."
    ]


def test_second_person_becomes_the_single_listener_with_agreement():
    assert story_claims("You know everyone's business here.", "RUTH", ["JUNE"]) == [
        "June knows everyone's business here."
    ]


def test_you_with_several_listeners_is_ambiguous_and_dropped():
    assert story_claims("You were first down there.", "TOMAS", ["KIT", "MARA"]) == []


def test_questions_orders_and_fragments_teach_nothing():
    assert story_claims("Is he breathing?", "KIT", ["MARA"]) == []
    assert story_claims("Go and ring the police, Kit.", "MARA", ["KIT"]) == []
    assert story_claims("Not on the rocks. Last night.", "KIT", ["MARA"]) == []


def test_sentences_about_no_one_in_particular_are_dropped():
    assert story_claims("They nest in spring. That's not the same thing.", "JUNE", ["RUTH"]) == []


def test_one_claim_per_sentence_and_forms_of_address_removed():
    claims = story_claims(
        "He took the boat log out of the office. He went in by the cellar door, Mara.",
        "KIT",
        ["MARA"],
    )
    assert claims == ["He took the boat log out of the office.", "He went in by the cellar door."]


def test_past_forms_keep_their_form_after_a_name():
    assert story_claims("I ran for the phone at the harbour.", "KIT", ["TOMAS"]) == [
        "Kit ran for the phone at the harbour."
    ]


def test_display_name():
    assert display_name("RUTH OKAFOR") == "Ruth Okafor"
