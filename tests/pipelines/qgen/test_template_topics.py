"""The template writer's topic frames and place names (without a topic, 60% of its
questions on the sample film were near-duplicates of each other)."""

from pipelines.qgen.template_text import anchor_phrase, question_for, topic_of


def payload(content: str, qtype: str = "Q3", location: str = "HARBOUR OFFICE") -> dict:
    return {
        "question_type": qtype,
        "holder": "RUTH",
        "about": "TOMAS",
        "anchor": {"location": location, "scene": 9},
        "belief_entries": [{"content": content, "holder": "RUTH"}],
    }


def test_the_topic_is_a_particular_thing_not_a_clause():
    assert topic_of(payload("Tomas hid the boat log in the cellar")) == "the boat log"
    assert topic_of(payload("the lamp failed in the storm")) == "the lamp"
    assert topic_of(payload("the body was found on the rocks")) == "the body"
    assert topic_of(payload("the log lies on the desk in the office")) == "the log"
    assert topic_of(payload("she came to the coast to watch birds")) == "the coast"
    assert topic_of(payload("nothing in particular happened")) is None


def test_the_topic_is_never_the_anchor_place():
    assert topic_of(payload("the office flooded", location="HARBOUR OFFICE")) is None


def test_questions_with_a_topic_still_name_the_holder():
    text = question_for(payload("Tomas hid the boat log in the cellar"))
    assert "Ruth" in text and text.endswith("?")


def test_place_names_of_several_words_keep_their_capitals():
    assert anchor_phrase(payload("x", location="GULL POINT ROCKS")) == "At the Gull Point Rocks"
    assert anchor_phrase(payload("x", location="LIGHTHOUSE")) == "At the lighthouse"
