"""`storyscope judge-eval storysumm`: judges scored against StorySumm's human labels."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.tables.judge_evals import latest_judge_evals
from pipelines.agreement.storysumm_eval import (
    anchors,
    balanced_accuracy,
    comparison_frame,
    load_summaries,
    score,
)
from pipelines.cli import app, load_commands
from viz.judge_eval import judge_vs_anchors_figure

load_commands()

# The released detectors' summary-level balanced accuracy from their own `label` fields
# (the figures the issue lists).
ANCHORS = {
    "gpt-4-0125-preview/cot": 0.550,
    "gpt-4-0125-preview/justquestion": 0.564,
    "claude-3-opus-20240229/cot": 0.561,
    "claude-3-opus-20240229/justquestion": 0.542,
    "mixtral/cot": 0.525,
    "mixtral/justquestion": 0.575,
    "fables-gpt-4-turbo-preview": 0.681,
    "minicheck-flan-t5-large": 0.508,
}


@pytest.fixture
def storysumm(shared_data):
    return shared_data / "storysumm"


@pytest.mark.realdata
def test_anchors_reproduce_the_released_figures(storysumm):
    summaries = load_summaries(storysumm)
    assert len(summaries) == 96
    found = {a["name"]: a["balanced_accuracy"] for a in anchors(storysumm, summaries)}
    assert found == ANCHORS  # AlignScore and UniEval carry probabilities only: no anchor


def test_scoring_rules():
    from pipelines.agreement.storysumm_eval import Summary

    summaries = [
        Summary("a", "", ["s1", "s2"], [1, 0], 0),
        Summary("b", "", ["s1"], [1], 1),
        Summary("c", "", ["s1", "s2"], [1, 1], 1),
        Summary("d", "", ["s1", "s2"], None, 1),  # sentence labels unusable: summary only
    ]
    # a judge that finds a's bad sentence and wrongly flags c's second one
    result = score("x", summaries, {"a": [1, 0], "b": [1], "c": [1, 0], "d": [1, 1]})
    assert result.n_summaries == 4 and result.n_sentences == 5
    assert result.accuracy == pytest.approx(4 / 5)
    # a unfaithful (found); b, c, d faithful (c missed) -> (1 + 2/3) / 2
    assert result.balanced_accuracy == pytest.approx((1 + 2 / 3) / 2)
    assert balanced_accuracy([0, 1], [0, 1]) == 1.0
    # an item the judge failed on is left out and counted
    assert score("x", summaries, {"a": [1, 0]}).failed == 3


@pytest.mark.realdata
def test_cli_lexical_json_and_the_verdicts_panel_data(storysumm, store):
    # --limit 3: the first three summaries are of one story, so one story is embedded (four
    # with --limit 10, ~3 s more CPU for the same checks)
    result = CliRunner().invoke(
        app,
        [
            "judge-eval",
            "storysumm",
            str(storysumm),
            "--backend",
            "lexical",
            "--limit",
            "3",
            "--json",
            "--store",
            str(store.path),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert {
        "backend",
        "n_summaries",
        "n_sentences",
        "kappa",
        "balanced_accuracy",
        "anchors",
    } <= set(payload)
    assert payload["backend"] == "lexical" and payload["n_summaries"] == 3
    assert payload["n_sentences"] > 10 and -1 <= payload["kappa"] <= 1
    assert {a["name"]: a["balanced_accuracy"] for a in payload["anchors"]} == ANCHORS
    evals = latest_judge_evals(store, "storysumm")
    assert list(evals["judge"]) == ["lexical"]
    frame = comparison_frame(evals)
    assert len(frame) == 1 + len(ANCHORS) and set(frame["kind"]) == {
        "our judge",
        "released detector",
    }
    figure = judge_vs_anchors_figure(frame)
    assert sum(len(trace.y) for trace in figure.data) == len(frame)


@pytest.mark.realdata
def test_openai_backend_through_the_gateway(storysumm, store, fake_llm):
    def all_faithful(body, n):
        # judge-claims-v2 (the default) numbers each sentence without the v1 role tag
        claims = [
            line.split(".")[0]
            for line in body["messages"][-1]["content"].splitlines()
            if re.match(r"\d+\. ", line)
        ]
        verdicts = [
            {"claim": int(c), "label": "asserted", "rationale": "in the story"} for c in claims
        ]
        return json.dumps({"verdicts": verdicts})

    server = fake_llm(all_faithful)
    from pipelines.agreement.storysumm_eval import evaluate

    # a generous timeout: the story prompts are long and CI shares two cores with browser tests
    llm = fake_llm.config(server, timeout_s=30.0).public_dict()
    result = evaluate(storysumm, "openai", store=store, llm=llm, limit=4)
    assert result.n_summaries == 4 and result.failed == 0 and result.run_id
    # the schema sent pins the labels array to the summary's sentence count (requests arrive
    # concurrently, so in any order)
    pinned = []
    for body in server.log.bodies:
        items = body["response_format"]["json_schema"]["schema"]["properties"]["verdicts"]
        assert items["minItems"] == items["maxItems"]
        pinned.append(items["maxItems"])
    assert sorted(pinned) == sorted(len(s.sentences) for s in load_summaries(storysumm)[:4])
    calls = store.df("SELECT * FROM llm_calls WHERE run_id = ?", [result.run_id])
    assert len(calls) == 4 and (calls.status == "ok").all()


def test_empty_evals_make_an_empty_frame():
    empty = pd.DataFrame(columns=["judge", "backend", "kappa", "accuracy", "balanced_accuracy"])
    assert comparison_frame(empty.assign(n_summaries=[], anchors=[])).empty


def test_support_judge_asserts_supported_claims_and_omits_the_rest():
    from pipelines.judge.support import SUPPORT_THRESHOLD, SupportMatcher

    story = (
        "Mara sold her grandmother's violin to pay the rent. The buyer was a tall man from "
        "the city. That night she dreamt of the old house by the sea."
    )
    claims = [
        "Mara sold her grandmother's violin to pay her rent.",
        "The stock market crashed after the central bank raised interest rates.",
    ]
    supports = SupportMatcher().supports([(story, claims), (story, [])])
    assert supports[1] == []
    supported, unrelated = supports[0]
    assert supported > 0.8 > SUPPORT_THRESHOLD > unrelated
    (first, second), _ = SupportMatcher().label_many([(story, claims), (story, [])])
    assert first[0] == "asserted" and second[0] == "omitted"
    assert f"{supported:.3f} >= {SUPPORT_THRESHOLD}" in first[1]


@pytest.mark.realdata
@pytest.mark.slow
def test_cli_minilm_support_on_the_test_split(storysumm, store):
    # The threshold was chosen on the val split (pipelines/judge/support.py); these are its
    # test-split figures, measured once with a small tolerance for library drift.
    result = CliRunner().invoke(
        app,
        [
            "judge-eval",
            "storysumm",
            str(storysumm),
            "--backend",
            "minilm-support",
            "--split",
            "test",
            "--json",
            "--store",
            str(store.path),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["backend"] == "minilm-support" and payload["split"] == "test"
    assert payload["n_summaries"] == 63 and payload["n_sentences"] == 394
    assert payload["kappa"] == pytest.approx(0.081, abs=0.02)
    assert payload["accuracy"] == pytest.approx(0.683, abs=0.02)
    assert payload["balanced_accuracy"] == pytest.approx(0.604, abs=0.03)
    assert list(latest_judge_evals(store, "storysumm")["judge"]) == ["minilm-support [test]"]
    # the released detectors are scored on the same 63 summaries
    found = {a["name"]: a for a in payload["anchors"]}
    assert {a["n_summaries"] for a in found.values()} == {63}
    assert found["fables-gpt-4-turbo-preview"]["balanced_accuracy"] == 0.65


@pytest.mark.realdata
def test_unknown_split_and_backend_are_refused(storysumm, store):
    for option, value in (("--split", "train"), ("--backend", "nli")):
        result = CliRunner().invoke(
            app,
            ["judge-eval", "storysumm", str(storysumm), option, value, "--store", str(store.path)],
        )
        assert result.exit_code != 0 and value in result.output
