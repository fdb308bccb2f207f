"""Topic balance (Table 1 measures) and reviewer voting (§3.3)."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from data_access.tables.mcq import mcq_questions
from pipelines.cli import app, load_commands
from pipelines.mcq.reviewers import review_table, reviewer_stats
from pipelines.mcq.topics import (
    TOPICS,
    gini_simpson,
    shannon_entropy_bits,
    topic_stats,
    topics_over,
)
from tests.support.mcq_records import golden_records, load_records, make_mcq

load_commands()


def test_balanced_counts_give_the_maximum_gini_and_entropy():
    counts = dict.fromkeys(TOPICS, 10)
    assert gini_simpson(counts) == pytest.approx(1 - 1 / 14)
    assert shannon_entropy_bits(counts) == pytest.approx(math.log2(14))
    assert topics_over(counts) == 14


def test_skewed_counts_are_less_balanced():
    counts = dict.fromkeys(TOPICS, 0)
    counts["P-C"], counts["I-A"] = 90, 10
    assert gini_simpson(counts) == pytest.approx(1 - 0.81 - 0.01)
    assert shannon_entropy_bits(counts) == pytest.approx(
        -(0.9 * math.log2(0.9) + 0.1 * math.log2(0.1))
    )
    assert topics_over(counts) == 2
    assert gini_simpson(dict.fromkeys(TOPICS, 0)) == 0.0


def test_topic_stats_per_source_and_all(store):
    records = [make_mcq("Friends", "Friends-S01E01", i, "P", "C") for i in range(3)]
    records += [make_mcq("Movie", "IMDB-001", i, "I", "CAL") for i in range(2)]
    records.append(make_mcq("Movie", "IMDB-001", 9, "X", "C"))  # unlabelled topic
    load_records(store, records)
    stats = topic_stats(mcq_questions(store))
    by_set = {row["set"]: row for row in stats["sets"]}
    assert list(by_set) == ["Friends", "Movie", "all"]
    assert by_set["Friends"]["counts"]["P-C"] == 3 and by_set["Friends"]["gini"] == 0.0
    assert by_set["Movie"]["n"] == 3 and by_set["Movie"]["labelled"] == 2
    assert by_set["all"]["counts"]["I-CAL"] == 2
    assert by_set["all"]["gini"] == pytest.approx(1 - 0.36 - 0.16, abs=1e-4)


def test_reviewer_voting_rules():
    import pandas as pd

    rows = [
        # all correct, all pick GT -> kept, strict
        (["True", "A0"], ["True", "a0."], ["True", "A"]),
        # all correct, two pick GT -> kept by majority, not strict
        (["True", "A0"], ["True", "A1"], ["True", "A0"]),
        # one says False -> fails correctness even though answers agree
        (["False", "A0"], ["True", "A0"], ["True", "A0"]),
        # all correct, only one picks GT -> fails majority voting
        (["True", "A0"], ["True", "A1"], ["True", "A2"]),
    ]
    frame = pd.DataFrame(
        {
            "mcq_id": [f"q{i}" for i in range(4)],
            "source": "Friends",
            "gt": "A0",
            "choices": [["A0", "A1", "A2", "A3", "A4"]] * 4,
            "gemini_check": [json.dumps(r[0]) for r in rows],
            "claude_check": [json.dumps(r[1]) for r in rows],
            "gpt_check": [json.dumps(r[2]) for r in rows],
        }
    )
    table = review_table(frame)
    assert table["kept"].tolist() == [True, True, False, False]
    assert table["strict_consistency"].tolist() == [True, False, True, False]
    assert table["unanimous_correct"].tolist() == [True, True, False, True]
    overall = reviewer_stats(frame)["sets"][-1]
    assert overall["majority_answer"] == 0.75 and overall["kept"] == 0.5
    assert overall["reviewer_gt_rate"]["gpt"] == 0.75


@pytest.mark.realdata
def test_golden_set_topics_and_reviewers(store, shared_data):
    load_records(store, golden_records(shared_data))
    runner = CliRunner()
    result = runner.invoke(app, ["topics", "--json", "--store", str(store.path)])
    assert result.exit_code == 0, result.output
    sets = {row["set"]: row for row in json.loads(result.output)["sets"]}
    assert set(sets) == {"BigBang", "Friends", "GOT", "Movie", "all"}
    full = sets["all"]
    assert full["n"] == 6927
    # Paper, Table 1 (full 363K set): Gini 0.927, entropy 3.795, 14 topics over 5 %.
    assert full["gini"] == pytest.approx(0.927, abs=0.002)
    assert full["entropy"] == pytest.approx(3.795, abs=0.01)
    assert full["topics_over_5pct"] == 14
    assert sum(full["counts"].values()) == 6927
    assert sets["Friends"]["n"] == 1682 and sets["Movie"]["n"] == 2007

    voting = reviewer_stats(mcq_questions(store))["sets"][-1]
    assert voting["unanimous_correct"] == 1.0  # golden questions all passed correctness
    assert 0.9 < voting["majority_answer"] <= 1.0
    assert voting["reviewer_gt_rate"]["gpt"] > voting["reviewer_gt_rate"]["gemini"]


def test_topics_without_mcqs_is_a_clear_error(store):
    result = CliRunner().invoke(app, ["topics", "--store", str(store.path)])
    assert result.exit_code != 0
    assert "no MCQs" in result.output
