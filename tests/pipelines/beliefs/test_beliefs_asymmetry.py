"""The `asymmetry` belief backend on small stories built here: absence makes a false
belief, a later witness revises it, a lie makes a false belief, co-witnesses and absentees get
meta-beliefs; the fact reader and the same-state rule on their own."""

from __future__ import annotations

import pytest

from pipelines.beliefs.asymmetry.cues import NameIndex, reported_tell
from pipelines.beliefs.asymmetry.facts import read_facts
from pipelines.beliefs.asymmetry.same import SameState, claim_fact
from tests.support.asymmetry_stories import ABSENT_MOVE, hashed, replay, rows_of


def test_a_change_while_the_holder_is_absent_makes_a_false_belief():
    trace = replay(*ABSENT_MOVE)
    assert trace.believes(("Anna",), "key") == "drawer"
    assert trace.believes(("Ben",), "key") == "box"
    (anna_key,) = [r for r in rows_of(trace, "Anna") if "key" in r["content"]]
    assert anna_key["kind"] == "witnessed" and anna_key["is_false"] is True
    assert anna_key["basis"] == ["e_002_1"] and anna_key["revised_at_scene"] is None
    ben_first = [r for r in rows_of(trace, "Ben") if "drawer" in r["content"]][0]
    assert ben_first["is_false"] is False and ben_first["revised_at_scene"] == 4
    # Table 19: the scene leaves a belief of Anna's false while she is away
    assert (4, "Anna") in trace.tracker.unaware


def test_witnessing_the_new_state_later_revises_the_false_belief():
    trace = replay(*ABSENT_MOVE, "Anna entered the kitchen.")
    anna = [r for r in rows_of(trace, "Anna") if "key" in r["content"] or r["kind"] == "revised"]
    old = next(r for r in anna if "drawer" in r["content"])
    new = next(r for r in anna if r["revises"] == old["belief_id"])
    assert new["kind"] == "revised" and new["scene_index"] == 5 and new["trigger"] == "e_005_1"
    assert old["revised_at_scene"] == 5 and old["is_false"] is True and new["is_false"] is False
    assert trace.believes(("Anna",), "key") == "box"


def test_a_lie_told_to_a_listener_who_never_saw_the_state_is_a_false_belief():
    trace = replay(
        "Ben entered the kitchen.",
        "The key is in the drawer.",
        "Ben exited the kitchen.",
        "Ben privately told Cara that the key is in the box.",
    )
    (told,) = [r for r in rows_of(trace, "Cara") if r["kind"] == "told"]
    assert told["source_character"] == "Ben" and told["believed"] is True
    assert told["is_false"] is True and told["basis"] == ["e_003_1"]
    assert trace.believes(("Cara",), "key") == "box"
    assert trace.believes(("Ben",), "key") == "drawer"  # telling leaves the teller's belief
    assert trace.believes(("Cara", "Ben"), "key") == "box"  # the listener thinks he holds it


def test_a_listener_who_saw_the_state_later_than_the_teller_rejects_the_claim():
    trace = replay(
        "Anna entered the kitchen.",
        "Ben entered the kitchen.",
        "The key is in the drawer.",
        "Ben exited the kitchen.",
        "Anna exited the kitchen.",
        "Ben privately told Anna that the key is in the box.",
    )
    rejected = [r for r in rows_of(trace, "Anna") if r["believed"] is False]
    assert len(rejected) == 1 and rejected[0]["is_false"] is False
    assert trace.believes(("Anna",), "key") == "drawer"


def test_a_later_claim_contradicting_an_accepted_one_makes_it_false_and_revises_the_hearer():
    trace = replay(
        "Anna entered the hall.",
        "Ben entered the hall.",
        "Cara entered the hall.",
        "Ben said that the lamp was broken.",
        "Cara exited the hall.",
        "Ben said that the lamp was not broken.",
    )
    (cara,) = [r for r in rows_of(trace, "Cara") if "lamp" in r["content"]]
    assert cara["is_false"] is True and cara["revised_at_scene"] is None  # left before it
    first, second = [r for r in rows_of(trace, "Anna") if "lamp" in r["content"]]
    assert first["is_false"] is True and first["revised_at_scene"] == 5
    assert second["kind"] == "revised" and second["revises"] == first["belief_id"]
    assert second["source_character"] == "Ben" and second["is_false"] is False
    # telling does not make the teller a holder
    assert [r for r in rows_of(trace, "Ben") if "lamp" in r["content"]] == []


def test_meta_beliefs_follow_who_saw_whom_witness_or_miss_a_change():
    trace = replay(*ABSENT_MOVE)
    meta = {(m["holder"], m["about"], m["source"]) for m in trace.tracker.meta}
    assert ("Ben", "Anna", "d_absence") in meta  # Ben saw the move Anna missed
    assert ("Anna", "Ben", "shared_witnessing") not in {  # no meta about the unchanged start
        (m["holder"], m["about"], m["source"]) for m in trace.tracker.meta if m["scene_index"] == 2
    }
    absent = next(m for m in trace.tracker.meta if m["source"] == "d_absence")
    assert absent["scene_index"] == 4 and absent["basis"] == ["e_004_1"]
    assert trace.believes(("Ben", "Anna"), "key") == "drawer"
    assert trace.believes(("Anna", "Ben"), "key") == "drawer"


NAMES = NameIndex({"MARA": ["Mara Voss"], "TOMAS": [], "KIT": []})


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("Tomas hides the log in the cellar.", ("log", "location", "cellar", False)),
        ("The log is not in the office.", ("log", "location", "office", True)),
        (
            "Mara finds a leather LEDGER wrapped in oilcloth.",
            ("leather ledger", "holder", "MARA", False),
        ),
        ("Mara gives Kit the ledger.", ("ledger", "holder", "KIT", False)),
        ("Tomas is dead.", ("TOMAS", "alive", "dead", False)),
        ("Kit knows about the ledger.", ("KIT", "knows", "ledger", False)),
        (
            "Tomas paid Elias to keep the light dark.",
            ("paid elias to keep the light dark", "did", "TOMAS", False),
        ),
        ("Mara Voss leaves the harbour office.", ("MARA", "location", "harbour office", True)),
    ],
)
def test_fact_reader(sentence, expected):
    (fact,) = read_facts(sentence, NAMES)
    assert (fact.subject, fact.slot, fact.value, fact.negated) == expected
    assert fact.text == sentence


def test_scenery_and_questions_state_no_fact_and_reported_speech_is_a_tell():
    assert read_facts("Grey water, black rocks.", NAMES) == []
    assert read_facts("Where is the log?", NAMES) == []
    tell = reported_tell("Tomas privately told Kit that the log is in the office.", NAMES)
    assert (tell.speaker, tell.listener, tell.claim) == (
        "TOMAS",
        "KIT",
        "the log is in the office.",
    )


def test_same_state_rule():
    facts = [
        f := read_facts("The boat log is in the office.", NAMES)[0],
        g := read_facts("The log is in the cellar.", NAMES)[0],
        h := read_facts("The red pepper is in the box.", NAMES)[0],
        i := read_facts("The green pepper is in the box.", NAMES)[0],
    ]
    same = SameState(facts, {"MARA", "TOMAS", "KIT"}, hashed)
    assert same.key(f) == same.key(g) and not same.agrees(f, g)  # one log, two places
    assert same.key(h) != same.key(i)  # two peppers


def test_unread_claims_are_one_state_by_minilm_and_disagree_by_negation():
    yes = claim_fact("The lamp failed in the storm.")
    no = claim_fact("The lamp did not fail in the storm.")
    other = claim_fact("The harbour master keeps a log of every boat.")
    same = SameState([yes, no, other], set())  # the real all-MiniLM-L6-v2 vectors
    assert no.negated and not yes.negated
    assert same.key(yes) == same.key(no) and not same.agrees(yes, no)
    assert same.key(other) != same.key(yes)
