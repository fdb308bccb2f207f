"""Difficulty D_q, D_a, D_qa, D (§3.4), bins, predictions import and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.tables.mcq import current_difficulty
from pipelines.cli import app, load_commands
from pipelines.mcq.difficulty import (
    answer_difficulty,
    binary_entropy_nats,
    compute_difficulty,
    equal_count_bins,
    qa_difficulty,
    question_difficulty,
    segment_seconds,
)
from pipelines.mcq.difficulty_run import run_difficulty
from tests.support.mcq_records import load_records, make_mcq

load_commands()


def fake_f1(candidates, references):
    """A deterministic stand-in scorer: word-overlap Jaccard (keeps these tests model-free)."""
    out = []
    for c, r in zip(candidates, references):
        a, b = set(c.lower().split()), set(r.lower().split())
        out.append(len(a & b) / len(a | b) if a | b else 0.0)
    return np.array(out)


def test_segment_seconds_reads_the_released_formats():
    assert segment_seconds(["00:01:00-00:01:10", "00:02:00-00:02:05"]) == 15
    assert segment_seconds(["01:09:09-01:09:10"]) == 1
    assert segment_seconds(["03:48-04:00"]) == 12  # MM:SS
    assert segment_seconds(["throughout", "", "cross scene"]) == 0
    assert segment_seconds(None) == 0


def test_question_difficulty_is_higher_for_short_sparse_questions():
    frame = pd.DataFrame(
        {
            "vid": ["v"] * 3,
            "times": [["00:00:00-00:00:02"], ["00:00:00-00:00:30"], ["00:00:00-00:01:00"]],
            "characters": [["A"], ["A", "B"], ["A", "B", "C"]],
            "locations": [[], ["x"], ["x", "y"]],
        }
    )
    d_q = question_difficulty(frame)
    assert d_q.is_monotonic_decreasing and d_q.iloc[0] > 0.5 > d_q.iloc[2]
    # unreadable span -> the set's mean readable span; one question per video -> z = 0 -> 0.5
    single = pd.DataFrame(
        {
            "vid": ["a", "b"],
            "times": [["throughout"], ["00:00:00-00:00:09"]],
            "characters": [["A"], ["B"]],
            "locations": [[], []],
        }
    )
    assert question_difficulty(single).tolist() == [0.5, 0.5]


def test_answer_and_qa_difficulty_follow_the_formulas():
    b_a = pd.Series([0.2, 0.5, 0.8])
    d_a = answer_difficulty(b_a)
    assert d_a.iloc[1] == pytest.approx(1 - math.log(2))  # B-hat = 0.5 -> max entropy
    assert d_a.iloc[0] == pytest.approx(d_a.iloc[2])  # symmetric around the mean
    assert binary_entropy_nats(0.0) == pytest.approx(0.0, abs=1e-9)
    assert qa_difficulty(pd.Series([0.2, 0.6, 1.0])).tolist() == pytest.approx([1.0, 0.5, 0.0])
    assert qa_difficulty(pd.Series([0.3, 0.3])).tolist() == [0.5, 0.5]


def test_nine_equal_count_bins():
    bins = equal_count_bins(pd.Series(np.linspace(0, 1, 90)))
    assert bins.value_counts().tolist() == [10] * 9
    assert bins.iloc[0] == 1 and bins.iloc[-1] == 9
    assert equal_count_bins(pd.Series([0.5] * 18)).value_counts().tolist() == [2] * 9


def _records(n=27):
    out = []
    for i in range(n):
        choices = [f"option {i} {k} " + "word " * k for k in range(5)]
        out.append(
            make_mcq(
                "Friends" if i % 2 else "Movie",
                f"vid{i % 3}",
                i,
                "P" if i % 2 else "I",
                "CA",
                choices=choices,
                option="ABCDE"[i % 5],
                question=f"question number {i} about option {i}",
                times=[f"00:00:00-00:00:{i + 1:02d}"],
                characters=["A"] * (1 + i % 3),
                locations=["L"],
            )
        )
    return out


def test_compute_difficulty_combines_the_three_parts():
    frame = pd.DataFrame(_records())
    out = compute_difficulty(frame, fake_f1)
    assert len(out) == 27 and out["bin"].value_counts().tolist() == [3] * 9
    np.testing.assert_allclose(out["d"], (out["d_q"] + out["d_a"] + out["d_qa"]) / 3)
    assert out["d_qa"].min() == 0.0 and out["d_qa"].max() == 1.0
    assert ((out["d_a"] >= 1 - math.log(2) - 1e-9) & (out["d_a"] <= 1)).all()


def test_run_stores_difficulty_and_accuracy_per_bin(store, tmp_path):
    load_records(store, _records())
    summary = run_difficulty(store, scorer=fake_f1)
    assert summary["n"] == 27 and len(summary["bins"]) == 9
    assert len(current_difficulty(store)) == 27
    preds = tmp_path / "preds.csv"
    lines = ["mcq_id,method,predicted_option"]
    lines += [f"{r['mcq_id']},oracle,{r['option']}" for r in _records()]
    lines += [f"{r['mcq_id']},always-e,E" for r in _records()]
    preds.write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    result = runner.invoke(
        app, ["mcq", "import-predictions", str(preds), "--json", "--store", str(store.path)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["methods"]["oracle"]["accuracy"] == 100.0
    result = runner.invoke(app, ["difficulty", "--json", "--store", str(store.path)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert set(summary) >= {"n", "mean", "bins"} and set(summary["mean"]) == {
        "d_q",
        "d_a",
        "d_qa",
        "d",
    }
    assert all(b["accuracy"]["oracle"] == 100.0 for b in summary["bins"])
    always_e = sum(b["accuracy"]["always-e"] * b["n"] for b in summary["bins"]) / 27
    assert always_e == pytest.approx(100 * 5 / 27, abs=0.1)  # option E is the GT for 5 of 27
    topics = {row["method"]: row for row in summary["accuracy"]["by_topic"]}
    assert topics["oracle"]["Avg"] == 100.0 and topics["oracle"]["P-CA"] == 100.0
    assert topics["oracle"]["P-C"] is None  # no P-C question in the fixture
    by_type = {row["method"]: row for row in summary["accuracy"]["by_video_type"]}
    assert by_type["oracle"]["TV"] == 100.0 and by_type["oracle"]["Movie"] == 100.0


@pytest.mark.parametrize(
    "body, message",
    [
        ("mcq_id,method,predicted_option\nFriends:nope:1,m,A\n", "record 1: field 'mcq_id'"),
        ("mcq_id,method,predicted_option\nMovie:vid0:0,m,Z\n", "field 'predicted_option'"),
        (
            "mcq_id,method,predicted_option\nMovie:vid0:0,m,A\nMovie:vid0:0,m,B\n",
            "record 2: duplicate",
        ),
        ("mcq_id,predicted_option\nMovie:vid0:0,A\n", "missing field 'method'"),
    ],
)
def test_bad_predictions_are_rejected_and_the_store_is_unchanged(store, tmp_path, body, message):
    load_records(store, _records())
    path = tmp_path / "bad.csv"
    path.write_text(body)
    result = CliRunner().invoke(
        app, ["mcq", "import-predictions", str(path), "--store", str(store.path)]
    )
    assert result.exit_code != 0
    assert message in result.output and "bad.csv" in result.output
    assert store.scalar("SELECT count(*) FROM mcq_predictions") == 0
    assert store.scalar("SELECT count(*) FROM runs WHERE step = 'mcq.predictions'") == 0


def test_predictions_from_jsonl(store, tmp_path):
    load_records(store, _records(3))
    path = tmp_path / "p.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {"question_id": r["mcq_id"], "method": "m", "predicted": r["option"].lower()}
            )
            for r in _records(3)
        )
    )
    result = CliRunner().invoke(
        app, ["mcq", "import-predictions", str(path), "--json", "--store", str(store.path)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["methods"]["m"] == {"n": 3, "accuracy": 100.0}


def test_d_q_reads_the_stored_evidence_length_not_its_own_parse_of_the_times():
    """D_q's segment length is the importer's `evidence_seconds` (one definition): an
    abbreviated end (`00:09:41-00:45`, 4 s as the importer reads it) is the shortest segment
    here, so its question is the hardest; a parse of its own read it as unreadable."""
    from data_access.importers.svqa_golden import evidence_seconds

    times = [["00:09:41-00:45"], ["00:00:00-00:00:30"], ["00:00:00-00:01:00"]]
    frame = pd.DataFrame(
        {
            "vid": ["v"] * 3,
            "times": times,
            "characters": [["A"]] * 3,
            "locations": [["x"]] * 3,
        }
    )
    stored = frame.assign(evidence_seconds=[evidence_seconds(t)[0] for t in times])
    assert stored.evidence_seconds.tolist() == [4.0, 30.0, 60.0]
    for rows in (frame, stored):  # from the times, or from the stored column: the same
        d_q = question_difficulty(rows)
        assert d_q.is_monotonic_decreasing and d_q.iloc[0] > d_q.iloc[1]
    # the stored column is what is read, whatever the times say
    swapped = stored.assign(evidence_seconds=[60.0, 30.0, 4.0])
    assert question_difficulty(swapped).is_monotonic_increasing
