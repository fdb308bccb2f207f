"""The harness letter rules and the JSONL record reader, as properties (hypothesis) and on the
harnesses' own examples."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pipelines.results.letters import (
    LETTERS,
    inspect_letter,
    lmms_eval_letter,
    loglikelihood_letter,
    plain_letter,
    vlmevalkit_letter,
)
from pipelines.results.records import iter_jsonl

letters = st.sampled_from(LETTERS)


@given(prefix=st.text(max_size=200), letter=letters, lower=st.booleans())
def test_inspect_reads_the_last_answer_line(prefix, letter, lower):
    answer = "answer" if lower else "ANSWER"
    assert inspect_letter(f"{prefix}\n{answer}: {letter}") == letter


def test_inspect_examples_from_its_parser():
    assert inspect_letter("Reasoning...\nANSWER: $C$") == "C"
    assert inspect_letter("ANSWER: **b**.") == "B"
    assert inspect_letter("ANSWER: A, B") is None  # two letters: not a single answer
    assert inspect_letter("I choose B") is None  # no ANSWER: line


@given(text=st.text(max_size=200))
def test_lmms_eval_gives_a_letter_it_found_or_none(text):
    found = lmms_eval_letter(text)
    assert found is None or (found in LETTERS and found in text)


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
