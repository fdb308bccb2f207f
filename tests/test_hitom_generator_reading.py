"""Hi-ToM under one reading of the published generator's rules (issue 14): entering, leaving,
moving, re-entering, on hand-written stories in Hi-ToM's sentence templates."""

from __future__ import annotations

import pytest

from pipelines.beliefs import hitom
from pipelines.beliefs.events import TomQuestion, TomStory
from pipelines.beliefs.grammar import parse_story


def _trace(lines: list[str], nesting: str = "generator"):
    events, unparsed = parse_story(lines)
    assert not unparsed, unparsed
    story = TomStory("t", "hitom", lines, events, [], {}, [])
    return hitom.trace_story(story, nesting), story


# Round 1: Ann leaves before Bob moves the apple. Round 2: Ann and Cat re-enter the kitchen,
# where the apple is not mentioned; Bob is elsewhere.
REENTRY = [
    "Ann, Bob and Cat entered the kitchen.",
    "The apple is in the red_box.",
    "Ann exited the kitchen.",
    "Bob moved the apple to the blue_box.",
    "Bob exited the kitchen.",
    "Cat exited the kitchen.",
    "Ann, Bob and Cat entered the waiting_room.",
    "Ann and Cat entered the kitchen.",
    "The pear is in the green_box.",
    "Ann exited the kitchen.",
    "Cat exited the kitchen.",
]


def test_reentering_sees_the_room_but_absent_agents_keep_what_they_last_saw():
    trace, _ = _trace(REENTRY)
    # EnterAction: the agents entering together see every object of the room, at every order
    # among themselves, so Ann now knows the apple's new place, and so do Ann-Cat chains.
    assert trace.believes(("Ann",), "apple") == "blue_box"
    assert trace.believes(("Cat", "Ann"), "apple") == "blue_box"
    # Bob did not see Ann re-enter: he keeps the place he last saw Ann see.
    assert trace.believes(("Bob", "Ann"), "apple") == "red_box"


def test_move_updates_chains_in_witness_order_with_the_mover_last():
    lines = [
        "Ann, Bob and Cat entered the kitchen.",
        "The apple is in the red_box.",
        "Ann moved the apple to the blue_box.",
        "Ann exited the kitchen.",
    ]
    trace, _ = _trace(lines)
    # MoveAction(observers=[Bob, Cat] + [Ann]) iterates combinations: (Bob, Ann) is updated,
    # (Ann, Bob) is not, and keeps what Ann and Bob saw together on entering.
    assert trace.believes(("Bob", "Ann"), "apple") == "blue_box"
    assert trace.believes(("Ann", "Bob"), "apple") == "red_box"
    # The paper's stated assumption (every co-present chain) is a named option, not mixed in.
    symmetric, _ = _trace(lines, "symmetric")
    assert symmetric.believes(("Ann", "Bob"), "apple") == "blue_box"


def test_label_error_reason_names_the_rule_the_label_follows():
    lines = [
        "Ann, Bob and Cat entered the kitchen.",
        "The apple is in the red_box.",
        "Ann moved the apple to the blue_box.",
        "Ann exited the kitchen.",
    ]
    _, story = _trace(lines)
    question = TomQuestion(
        "q",
        "Where does Ann think Bob thinks the apple is?",
        ("Ann", "Bob"),
        "apple",
        "blue_box",
        "2",
    )
    reason = hitom.label_error_reason(story, question, "red_box")
    assert "symmetric update" in reason
    odd = TomQuestion("q", "Where is the apple really?", (), "apple", "green_box", "0")
    assert "never in" in hitom.label_error_reason(story, odd, "blue_box")


def test_no_reading_is_chosen_per_item():
    with pytest.raises(ValueError, match="generator, symmetric"):
        hitom.trace_story(TomStory("t", "hitom", [], [], [], {"prompting_type": "VP"}, []), "auto")
