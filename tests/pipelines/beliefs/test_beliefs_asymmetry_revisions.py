"""The `asymmetry` backend's revision rule ("a revision happens when the holder later
witnesses or is told the new state") on small stories built here."""

from __future__ import annotations

from tests.support.asymmetry_stories import ABSENT_MOVE, replay, rows_of


def test_second_hand_news_of_a_change_revises_a_holder_who_saw_the_old_state():
    # Anna saw the key in the drawer and left; Ben moved it and told Cara, who tells Anna. Cara
    # never saw the key, but her news is Ben's, and Ben saw it after Anna did.
    trace = replay(
        *ABSENT_MOVE,
        "Ben exited the kitchen.",
        "Ben privately told Cara that the key is in the box.",
        "Cara privately told Anna that the key is in the box.",
    )
    anna = rows_of(trace, "Anna")
    old = next(r for r in anna if r["content"].startswith("The key is in the drawer"))
    (new,) = [r for r in anna if r["revises"] == old["belief_id"]]
    assert new["kind"] == "revised" and new["believed"] is True
    assert new["source_character"] == "Cara" and new["scene_index"] == 7
    assert old["revised_at_scene"] == 7 and old["is_false"] is True
    assert trace.believes(("Anna",), "key") == "box"


def test_second_hand_news_older_than_what_the_listener_saw_is_still_rejected():
    # Ben saw the drawer and left before Anna did; what he told Cara is older than Anna's look.
    trace = replay(
        "Anna entered the kitchen.",
        "Ben entered the kitchen.",
        "The key is in the drawer.",
        "Ben exited the kitchen.",
        "Anna exited the kitchen.",
        "Ben privately told Cara that the key is in the box.",
        "Cara privately told Anna that the key is in the box.",
    )
    assert [r["believed"] for r in rows_of(trace, "Anna") if "box" in r["content"]] == [False]
    assert trace.believes(("Anna",), "key") == "drawer"


def test_seeing_a_thing_taken_revises_where_the_holder_thought_it_was():
    trace = replay(
        "Anna entered the kitchen.",
        "Ben entered the kitchen.",
        "The key is in the drawer.",
        "Ben takes the key.",
    )
    anna = rows_of(trace, "Anna")
    old = next(r for r in anna if r["content"].startswith("The key is in the drawer"))
    (new,) = [r for r in anna if r["revises"] == old["belief_id"]]
    assert new["kind"] == "revised" and new["content"].startswith("Ben takes the key")
    assert new["trigger"] == "e_003_1" and old["revised_at_scene"] == 3
    # one record per holder for the sentence, though it is read as a holder and a location
    assert sum(r["content"].startswith("Ben takes") for r in rows_of(trace, "Ben")) == 1


def test_a_thing_taken_while_the_holder_is_away_leaves_their_belief_false():
    trace = replay(
        "Anna entered the kitchen.",
        "Ben entered the kitchen.",
        "The key is in the drawer.",
        "Anna exited the kitchen.",
        "Ben pockets the key.",
    )
    (anna_key,) = [r for r in rows_of(trace, "Anna") if "key" in r["content"]]
    assert anna_key["is_false"] is True and anna_key["revised_at_scene"] is None
    assert (4, "Anna") in trace.tracker.unaware


def test_having_or_finding_a_thing_does_not_move_it():
    trace = replay(
        "Anna entered the kitchen.",
        "Ben entered the kitchen.",
        "The key is in the drawer.",
        "Ben finds the key.",
        "Ben has the key.",
    )
    assert not [
        r for r in rows_of(trace, "Anna") if r["kind"] == "revised" and "key" in r["content"]
    ]
    assert trace.believes(("Anna",), "key") == "drawer"
