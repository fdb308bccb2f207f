"""`storyscope gold-eval`: belief matching, judge agreement and the JSON shape."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from pipelines.goldeval import SUMMARY_KEYS, summary
from pipelines.goldeval.beliefs import belief_scenes, match_beliefs, score_beliefs
from pipelines.goldeval.judge import score_judge


def bag_of_words(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for MiniLM: unit bag-of-words vectors."""
    vocabulary = sorted({w for t in texts for w in t.lower().split()})
    vectors = np.array([[t.lower().split().count(w) for w in vocabulary] for t in texts], float)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def embed(texts):
    # both sides of a comparison share one vocabulary through a cache of all texts seen
    embed.seen = list(dict.fromkeys([*getattr(embed, "seen", []), *texts]))
    table = dict(zip(embed.seen, bag_of_words(embed.seen)))
    width = len(table[embed.seen[0]])
    return np.array([np.pad(table[t], (0, width - len(table[t]))) for t in texts])


def beliefs(rows: list[tuple]) -> pd.DataFrame:
    columns = ["holder", "scene_index", "content", "basis", "is_false", "believed", "revises"]
    return pd.DataFrame(rows, columns=columns)


def test_belief_scenes_include_basis_event_scenes():
    assert belief_scenes(1, ["e_016_2", "s_003"]) == {1, 16}


def test_matching_needs_holder_scene_overlap_and_similar_content():
    gold = beliefs(
        [
            ("JUNE", 1, "ruth is here for the birds", ["e_001_1"], True, True, None),
            ("JUNE", 12, "ruth is police", ["e_012_3"], False, None, "F1"),
        ]
    )
    backend = beliefs(
        [
            ("JUNE", 1, "ruth is here for the birds", ["e_001_1"], False, None, None),
            ("MARA", 1, "ruth is here for the birds", ["e_001_1"], False, None, None),
            ("JUNE", 5, "ruth is police", ["e_005_1"], False, None, None),
        ]
    )
    assert [(i, j) for i, j, _ in match_beliefs(backend, gold, bag_of_words)] == [(0, 0)]
    scores = score_beliefs(backend, gold, bag_of_words)
    assert scores["precision"] == pytest.approx(1 / 3, abs=1e-4)
    assert scores["recall"] == 0.5
    assert scores["false_belief_recall"] == 0.0  # matched, but the backend did not mark it false
    assert scores["revision_recall"] == 0.0


def test_a_rejected_tell_is_not_a_false_belief_to_recall():
    gold = beliefs([("RUTH", 9, "the log was ruined in a flood", ["e_009_2"], False, False, None)])
    assert score_beliefs(gold, gold, bag_of_words)["false_belief_recall"] is None


def test_judge_scores_against_gold():
    pairs = pd.DataFrame(
        {
            "gold": ["asserted", "asserted", "omitted", "contradicted", "omitted"],
            "judged": ["asserted", "omitted", "omitted", "asserted", None],
        }
    )
    scores = score_judge(pairs)
    assert scores["accuracy"] == 0.5
    assert scores["confusion"]["omitted"] == {"omitted": 1, "unjudged": 1}
    assert scores["n_judged"] == 4 and -1 <= scores["kappa"] <= 1


def test_summary_keeps_exactly_the_issue_keys():
    detail = {part: {k: 0 for k in (*keys, "extra")} for part, keys in SUMMARY_KEYS.items()}
    assert {part: list(v) for part, v in summary(detail).items()} == {
        "beliefs": ["backend", "precision", "recall", "false_belief_recall", "revision_recall"],
        "questions": ["backend", "checks_pass_rate", "near_duplicate_rate", "self_bleu2"],
        "judge": ["backend", "kappa", "accuracy", "confusion"],
    }


def test_cli_on_the_sample_film(store, store_path):
    from data_access.importers.gold import import_gold
    from pipelines.beliefs.annotate import annotate
    from pipelines.cli import app, load_commands
    from pipelines.demo import step_30_sample_film, step_46_gold
    from pipelines.judge import JudgeOptions, run_judge
    from pipelines.qgen.generate import GenerateOptions, generate

    load_commands()
    runner = CliRunner()
    step_30_sample_film.run(store, None, lambda m: None)
    missing = runner.invoke(app, ["gold-eval", "--store", str(store_path)])
    assert missing.exit_code == 2 and "storyscope demo" in missing.output
    annotate(store, "the-keepers-ledger", "rules")
    import_gold(store, step_46_gold.GOLD_DIR)
    # no UMAP analytics: gold-eval scores questions by their checks (analytics is its own test)
    generate(
        store, GenerateOptions("the-keepers-ledger", n=8, backend="template", with_analytics=False)
    )
    run_judge(store, JudgeOptions(backend="lexical"))
    result = runner.invoke(app, ["gold-eval", "--store", str(store_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["beliefs"]["backend"] == "rules" and report["judge"]["backend"] == "lexical"
    assert 0 < report["beliefs"]["precision"] <= 1 and 0 < report["beliefs"]["recall"] <= 1
    assert report["questions"]["checks_pass_rate"] is not None
    assert sum(sum(row.values()) for row in report["judge"]["confusion"].values()) == 105
    text = runner.invoke(app, ["gold-eval", "--store", str(store_path)])
    assert "rules backend vs gold: precision" in text.output
