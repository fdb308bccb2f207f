"""The symbolic tracker on stories built in code: perception, nesting, trust and telling."""

from __future__ import annotations

import pytest

from pipelines.beliefs.tom.events import CONTAINER_IN, LOCATED, MOVE, OTHER
from pipelines.beliefs.tom.grammar import parse_sentence, parse_story
from pipelines.beliefs.tom.hitom import question_chain, story_sentences
from pipelines.beliefs.tom.tracker import track

SALLY_ANNE = [
    "Sally, Anne and Tom entered the kitchen.",
    "The marble is in the basket.",
    "Sally exited the kitchen.",
    "Anne moved the marble to the box.",
    "Tom exited the kitchen.",
    "Anne exited the kitchen.",
]


def _trace(sentences, **rules):
    events, unparsed = parse_story(sentences)
    assert unparsed == []
    agents = list(dict.fromkeys(a for e in events for a in (*e.agents, e.listener) if a))
    return track(events, agents, **rules)


def test_first_order_false_belief_and_reality():
    trace = _trace(SALLY_ANNE)
    assert trace.reality("marble") == "box"
    assert trace.believes(("Sally",), "marble") == "basket"  # left before the move
    assert trace.believes(("Anne",), "marble") == "box"
    assert trace.believes(("Tom",), "marble") == "box"
    assert trace.believes(("Sally",), "marble", step=1) == "basket"


def test_nested_beliefs_follow_what_the_chain_saw_together():
    trace = _trace(SALLY_ANNE)
    assert trace.believes(("Anne", "Sally"), "marble") == "basket"  # Anne saw Sally leave
    assert trace.believes(("Sally", "Anne"), "marble") == "basket"  # Sally never saw the move
    assert trace.believes(("Tom", "Anne"), "marble") == "box"
    assert trace.believes(("Tom", "Anne", "Sally", "Tom"), "marble") == "basket"
    assert trace.believes(("Tom", "Anne", "Tom", "Anne"), "marble") == "box"


def test_perceivers_are_the_agents_in_the_room():
    trace = _trace(SALLY_ANNE)
    assert trace.perceivers[0] == {"Sally", "Anne", "Tom"}
    assert trace.perceivers[2] == {"Sally", "Anne", "Tom"}  # everyone sees Sally go
    assert trace.perceivers[3] == {"Anne", "Tom"}
    assert trace.perceivers[5] == {"Anne"}


def test_ordered_nesting_skips_the_movers_view_of_others():
    # Hi-ToM's VP labels: a move updates nested chains in witness order with the mover last.
    symmetric = _trace(SALLY_ANNE)
    ordered = _trace(SALLY_ANNE, nesting="ordered")
    assert symmetric.believes(("Anne", "Tom"), "marble") == "box"
    assert ordered.believes(("Anne", "Tom"), "marble") == "basket"
    assert ordered.believes(("Tom", "Anne"), "marble") == "box"


def test_listener_trusts_only_a_speaker_who_left_later():
    story = SALLY_ANNE + [
        "Sally, Anne and Tom entered the waiting_room.",
        "Anne privately told Sally that the marble is in the drawer.",  # Anne left after Sally
        "Sally privately told Tom that the marble is in the basket.",  # Sally left first
    ]
    trace = _trace(story)
    assert trace.believes(("Sally",), "marble") == "drawer"
    assert trace.believes(("Sally", "Anne"), "marble") == "drawer"
    assert trace.believes(("Anne", "Sally"), "marble") == "drawer"  # speaker assumes belief
    assert trace.believes(("Anne",), "marble") == "box"  # telling is not believing
    assert trace.believes(("Tom",), "marble") == "box"  # distrusts Sally
    assert trace.believes(("Sally", "Tom"), "marble") == "basket"
    assert trace.reality("marble") == "box"
    assert [(who, said, ok) for _, who, said, ok in trace.trusted] == [
        ("Sally", "Anne", True),
        ("Tom", "Sally", False),
    ]


def test_public_claim_reaches_everyone_who_trusts_the_speaker():
    story = SALLY_ANNE + ["Tom publicly claimed that marble is in the jar."]
    trace = _trace(story)
    assert trace.perceivers[-1] == {"Sally", "Anne", "Tom"}
    assert trace.believes(("Sally",), "marble") == "jar"  # Tom left after Sally
    assert trace.believes(("Anne",), "marble") == "box"  # Anne left after Tom
    assert trace.believes(("Tom", "Anne"), "marble") == "jar"
    assert _trace(story, public_known=True).believes(("Anne", "Sally"), "marble") == "jar"
    assert trace.believes(("Anne", "Sally"), "marble") == "basket"


def test_unknown_nesting_rule_is_refused():
    with pytest.raises(ValueError, match="nesting"):
        track([], [], nesting="sideways")


@pytest.mark.parametrize(
    "text, kind",
    [
        ("Avery moved the lettuce to the green_bathtub.", MOVE),
        ("The lettuce is in the green_drawer.", LOCATED),
        ("Owen likes the green_envelope.", OTHER),
        ("Diego moved the scarf to the a donation bin and Amir witnessed the action.", MOVE),
    ],
)
def test_templates(text, kind):
    assert parse_sentence(0, text).kind == kind


def test_container_facts_and_homonym_rooms():
    events, _ = parse_story(
        [
            "Mason entered the pantry",
            "The melon is in the pantry",
            "The pantry is in the pantry",
            "The cupboard is in the pantry",
        ]
    )
    assert [e.kind for e in events[1:]] == [LOCATED, CONTAINER_IN, CONTAINER_IN]


def test_opentom_witness_flag():
    event = parse_sentence(
        0, "Bella moved the coat to the the trash can but Aaron did not witness the action."
    )
    # the generator wrote "the the trash can" for the place "the trash can"
    assert event.observers == ("Bella",) and event.container == "the trash can"


def test_hitom_question_and_story_forms():
    assert question_chain("Where is the peas really?") == ((), "peas")
    assert question_chain("Where does Ava really think the lime is?") == (("Ava",), "lime")
    assert question_chain("Where does A think B thinks C thinks D thinks the sweet_potato is?") == (
        ("A", "B", "C", "D"),
        "sweet_potato",
    )
    assert story_sentences("Read this.\n1 A entered the hall.\n\n2 The x is in the y.\n") == [
        "A entered the hall.",
        "The x is in the y.",
    ]
