"""Hi-ToM under one reading of the published generator's rules: entering, leaving,
moving, re-entering, on hand-written stories in Hi-ToM's sentence templates."""

from __future__ import annotations

import pytest

from pipelines.beliefs.tom import hitom
from pipelines.beliefs.tom.events import TomQuestion, TomStory
from pipelines.beliefs.tom.grammar import parse_story


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


def _item(half: str, sample: int, lines: list[str], question: str, answer: str) -> dict:
    story = "\n".join(f"{n} {line}" for n, line in enumerate(lines, 1))
    return {
        "prompting_type": half,
        "sample_id": sample,
        "story": story,
        "question": question,
        "answer": answer,
        "question_order": 2,
        "deception": False,
    }


MOVE_STORY = [
    "Ann, Bob and Cat entered the kitchen.",
    "The apple is in the red_box.",
    "Ann moved the apple to the blue_box.",
    "Ann exited the kitchen.",
]


def test_twins_with_different_labels_are_counted_and_named(tmp_path):
    import json

    ask = "Where does Ann think Bob thinks the apple is?"
    items = [
        _item("CoTP", 1, MOVE_STORY, ask, "blue_box"),  # the symmetric update's answer
        _item("VP", 2, MOVE_STORY, ask, "red_box"),  # the generator's answer
        _item("VP", 3, MOVE_STORY, "Where is the apple really?", "blue_box"),
    ]
    twins = hitom.label_twins(items)
    assert [t["sample_id"] for t in twins[0]] == [2] and twins[2] == []
    path = tmp_path / "hitom.json"
    path.write_text(json.dumps({"data": items}))
    result = hitom.evaluate(path).as_json()
    # One reading cannot match both halves: the ceiling is (3 - 1) / 3.
    assert result["contradicting_pairs"] == 1
    assert result["single_reading_ceiling"] == pytest.approx(2 / 3, abs=1e-4)
    assert result["accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    (error,) = result["label_errors"]
    assert error["item"] == "hitom-cotp-0001"
    assert "VP half (sample 2) is labelled red_box" in error["reason"]
    # The symmetric alternative gets the other half of the pair wrong, and says so.
    symmetric = hitom.evaluate(path, nesting="symmetric").as_json()
    assert [e["item"] for e in symmetric["label_errors"]] == ["hitom-vp-0002"]
    assert "CoTP half (sample 1) is labelled blue_box" in symmetric["label_errors"][0]["reason"]


def test_versioned_reading_picks_the_rule_of_each_half_and_needs_the_half():
    lines = [
        "Ann, Bob and Cat entered the kitchen.",
        "The apple is in the red_box.",
        "Ann moved the apple to the blue_box.",
        "Ann exited the kitchen.",
    ]
    events, _ = parse_story(lines)

    def answer(meta):
        story = TomStory("t", "hitom", lines, events, [], meta, [])
        return hitom.trace_story(story, "versioned").believes(("Ann", "Bob"), "apple")

    assert answer({"prompting_type": "VP"}) == "red_box"  # combinations: mover last
    assert answer({"prompting_type": "CoTP"}) == "blue_box"  # both orders
    with pytest.raises(ValueError, match="versioned reading needs prompting_type"):
        answer({})
