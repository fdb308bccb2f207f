"""Why a verdict: the lexical judge's matched sentence, score and negation cue recovered from
its stored rationale, and every judge of a claim side by side with the page's filters."""

from __future__ import annotations

import pandas as pd

from pipelines.judge.explain import explain_lexical, explanation, filtered, side_by_side

ANSWER = "Ann waits at the jetty. She does not know the boat was cancelled."
CLAIM = "Ann knows the supply boat was cancelled."


def test_lexical_contradiction_names_sentence_score_and_cue():
    found = explain_lexical("similarity 0.81, opposite negation in sentence 2", ANSWER, CLAIM)
    assert found["sentence"] == "She does not know the boat was cancelled."
    assert found["score"] == 0.81
    assert found["cue"] == "negation in claim: none; in sentence: not"


def test_omitted_and_llm_rationales_are_shown_as_stored():
    omitted = "best sentence similarity 0.31 < 0.6"
    assert explanation("lexical", omitted, ANSWER, CLAIM) == omitted
    assert explanation("openai", "The answer says Ann knows.", ANSWER, CLAIM) == (
        "The answer says Ann knows."
    )
    line = explanation("lexical", "similarity 0.70 with sentence 1", ANSWER, CLAIM)
    assert line.startswith("negation in claim: ")
    assert line.endswith("; matched “Ann waits at the jetty.” (similarity 0.70)")


def test_side_by_side_flags_and_filters():
    rows = [
        # ord, setting, answer, judge, backend, verdict, rationale
        (1, "A", "a1", "lexical", "lexical", "asserted", "similarity 0.9 with sentence 1"),
        (1, "A", "a1", "gpt", "openai", "asserted", "says so"),
        (1, "B", "b1", "lexical", "lexical", "omitted", "best sentence similarity 0.2 < 0.6"),
        (1, "B", "b1", "gpt", "openai", "contradicted", "says the opposite"),
    ]
    judgements = pd.DataFrame(
        rows, columns=["ord", "setting", "answer_id", "judge_id", "backend", "verdict", "rationale"]
    ).assign(role="core", claim=CLAIM)
    answers = pd.DataFrame({"answer_id": ["a1", "b1"], "text": [ANSWER, "No idea."]})
    table = side_by_side(judgements, answers)
    assert list(table["setting"]) == ["A", "B"]
    assert table.loc[1, "gpt"] == "contradicted — says the opposite"
    assert table.loc[0, "lexical"].startswith("asserted — negation in claim: none")
    assert "matched “Ann waits at the jetty.”" in table.loc[0, "lexical"]
    assert list(table["judges disagree"]) == [False, True]
    assert list(table["contradicted"]) == [False, True]
    assert table["settings differ"].all()
    assert list(filtered(table, ["judges disagree", "contradicted"])["setting"]) == ["B"]
    assert len(filtered(table, [])) == 2


def test_a_missing_rationale_or_answer_read_from_a_frame_as_nan_explains_nothing():
    """A stored verdict without a rationale reaches `side_by_side` as NaN, which is truthy: the
    Verdicts page crashed with "expected string or bytes-like object, got 'float'"."""
    nan = float("nan")
    assert explain_lexical(nan, ANSWER, CLAIM)["sentence"] is None
    assert explanation("lexical", nan, nan, CLAIM) == explain_lexical(None, None, CLAIM)["cue"]
    assert explanation("llm", nan, ANSWER, CLAIM) == ""
