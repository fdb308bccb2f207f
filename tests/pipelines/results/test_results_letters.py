"""The harness letter rules and the JSONL record reader, as properties (hypothesis) and on the
harnesses' own examples."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.results.letters import (
    INSPECT_FIRST_ANY,
    INSPECT_FIRST_STRICT,
    INSPECT_LAST,
    INSPECT_RULE_VERSIONS,
    LETTERS,
    VLMEVAL_ORIGINAL,
    VLMEVAL_POSITION,
    VLMEVAL_VERBOSE,
    as_letter,
    inspect_letter,
    inspect_rule,
    labelled_letter,
    loglikelihood_letter,
    parse_labels,
    plain_letter,
    storyscope_letter,
    vlmevalkit_letter,
    vlmevalkit_rule,
)
from pipelines.results.records import iter_jsonl

letters = st.sampled_from(LETTERS)


@given(prefix=st.text(max_size=200), letter=letters, lower=st.booleans())
def test_inspect_reads_the_last_answer_line(prefix, letter, lower):
    answer = "answer" if lower else "ANSWER"
    assert inspect_letter(f"{prefix}\n{answer}: {letter}") == letter


def test_inspect_rules_by_version():
    assert [inspect_rule(v) for v in ("0.3.41", "0.3.42", "0.3.162", "0.3.221", None)] == [
        INSPECT_FIRST_ANY, INSPECT_FIRST_STRICT, INSPECT_FIRST_STRICT, INSPECT_LAST, INSPECT_LAST,
    ]  # fmt: skip
    two = "ANSWER: B\nOn reflection\nANSWER: C"
    assert [inspect_letter(two, r) for r in INSPECT_RULE_VERSIONS] == ["B", "B", "C"]
    # lowercase letters were refused until 0.3.221 uppercased the match
    assert [inspect_letter("ANSWER: b", r) for r in INSPECT_RULE_VERSIONS] == [None, None, "B"]


def test_inspect_examples_from_its_parser():
    assert inspect_letter("Reasoning...\nANSWER: $C$") == "C"
    assert inspect_letter("ANSWER: **b**.") == "B"
    assert inspect_letter("ANSWER: A, B") is None  # two letters: not a single answer
    assert inspect_letter("I choose B") is None  # no ANSWER: line


@given(text=st.text(max_size=200), n_choices=st.integers(2, 5))
def test_storyscope_rule_gives_a_letter_it_found_or_none(text, n_choices):
    found = storyscope_letter(text, n_choices)
    assert found is None or (found in LETTERS[:n_choices] and found in text.upper())


def test_storyscope_rule_on_verbose_replies():
    assert storyscope_letter("**Correct answer: B**") == "B"  # not C from "Correct"
    assert storyscope_letter("answer: (d)", 4) == "D"
    assert storyscope_letter("Definitely D") == "D"  # the D of "Definitely" is inside a word
    assert storyscope_letter("E is it", 4) is None  # E is not a choice of four
    assert storyscope_letter("none of these") is None


@given(letter=letters, texts=st.lists(st.text(min_size=1, max_size=30), min_size=5, max_size=5))
def test_vlmevalkit_reads_a_bare_letter(letter, texts):
    choices = dict(zip(LETTERS, texts, strict=True))
    assert vlmevalkit_letter(letter, choices) == letter


def test_vlmevalkit_examples_from_can_infer():
    choices = {"A": "red", "B": "green", "C": "blue"}
    assert vlmevalkit_letter("B) green.", choices) == "B"
    assert vlmevalkit_letter("I think it is blue", choices) == "C"  # by the option's text
    assert vlmevalkit_letter("A or B", choices) is None  # two letters
    assert vlmevalkit_letter("Cannot determine the answer", choices) is None  # its 'Z'
    assert vlmevalkit_letter("Z", choices) is None  # its 'Z' too: no text rule after it


@pytest.mark.parametrize(
    ("text", "original", "position", "verbose"),
    [
        ("B is my pick, though I am unsure", "B", None, None),  # B is not among the last 4
        ("I am fairly sure it is B", "B", "B", "B"),
        ("The correct answer is **B**. A and C are wrong", None, None, "B"),  # three letters
        ("after a long look at the whole scene I would say the colour is blue", "C", None, None),
    ],
)
def test_vlmevalkit_can_infer_by_version(text, original, position, verbose):
    choices = {"A": "red", "B": "green", "C": "blue"}
    assert vlmevalkit_letter(text, choices, VLMEVAL_ORIGINAL) == original
    assert vlmevalkit_letter(text, choices, VLMEVAL_POSITION) == position
    assert vlmevalkit_letter(text, choices, VLMEVAL_VERBOSE) == verbose


def test_vlmevalkit_rule_of_a_run_date():
    assert vlmevalkit_rule("2025-04-28") == VLMEVAL_ORIGINAL
    assert vlmevalkit_rule("2025-08-04") == VLMEVAL_POSITION
    assert vlmevalkit_rule("2026-04-17") == VLMEVAL_POSITION
    assert vlmevalkit_rule("2026-07-01") == VLMEVAL_VERBOSE
    assert vlmevalkit_rule(None) == VLMEVAL_VERBOSE  # unknown: the current rule


def test_parsed_answers_and_labels():
    assert [as_letter(v) for v in ("b", "(C)", "D.", "", "red", None)] == [
        "B",
        "C",
        "D",
        None,
        None,
        None,
    ]
    labels = parse_labels("1234")
    assert [labelled_letter(t, labels) for t in ("1", "(2)", "ANSWER: 3", "4.", "5", "B")] == [
        "A", "B", "C", "D", None, None,
    ]  # fmt: skip
    assert parse_labels("i,ii,iii") == ("i", "ii", "iii")


@given(scores=st.lists(st.floats(-100, 0), min_size=1, max_size=5))
def test_loglikelihood_letter_is_the_argmax(scores):
    assert loglikelihood_letter(scores) == LETTERS[scores.index(max(scores))]


@given(letter=letters, wrap=st.sampled_from(["{}", "({})", "{}.", "{})", " {} "]))
def test_plain_letter_takes_a_bare_letter(letter, wrap):
    assert plain_letter(wrap.format(letter)) == letter


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(records=st.lists(st.dictionaries(st.text(), json_values, max_size=4), max_size=6))
def test_iter_jsonl_reads_back_what_json_dumps_wrote(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("jsonl") / "r.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    read = list(iter_jsonl(path))
    assert [value for _, value in read] == records
    assert [label for label, _ in read] == [f"line {i}" for i in range(1, len(records) + 1)]
