"""Question analytics: near-duplicates, clusters, 2-D projection, Self-BLEU, opening frames."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from data_access.queries import qlab_view
from pipelines.qgen.analytics import (
    analyze_questions,
    clusters_of,
    near_duplicate_pairs,
    opening_frames,
    project_2d,
    self_bleu,
)
from pipelines.qgen.generate import GenerateOptions, generate
from tests.support.qgen_film import build_film


def test_self_bleu_of_identical_questions_is_100_and_of_disjoint_ones_near_0():
    same = ["At the bar, what does Tom know about the money?"] * 3
    assert self_bleu(same, 2) == pytest.approx(100.0)
    assert self_bleu(same, 4) == pytest.approx(100.0)
    disjoint = ["alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda mu"]
    assert self_bleu(disjoint, 2) < 5.0
    assert self_bleu(["only one"], 2) is None


def test_self_bleu_2_exceeds_self_bleu_4_on_shared_frames():
    texts = [
        "In the kitchen, what does Ann make of Bo's promise?",
        "At the pier, what does Cy make of Di's warning?",
        "On the train, what does Ed make of Flo's offer?",
    ]
    assert self_bleu(texts, 2) > self_bleu(texts, 4) > 0


def test_opening_frames_skip_the_anchor_and_count_shares():
    texts = [
        "In the kitchen, what does Ann think?",
        "At the pier, what does Cy fear?",
        "On the train, how has Ed changed?",
    ]
    frames = opening_frames(texts, 2)
    assert frames[0] == {
        "frame": "what does",
        "n_words": 2,
        "count": 2,
        "share": pytest.approx(2 / 3, abs=1e-4),
    }
    assert frames[1]["frame"] == "how has"


def test_near_duplicates_and_clusters_from_vectors():
    vectors = np.array([[1, 0], [0.99, 0.141], [0, 1], [-1, 0]], dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = ["a", "b", "c", "d"]
    pairs = near_duplicate_pairs(ids, vectors, 0.9)
    assert [(p["question_a"], p["question_b"]) for p in pairs] == [("a", "b")]
    clusters = {row["question_id"]: row for row in clusters_of(ids, pairs)}
    assert clusters["a"]["cluster_id"] == clusters["b"]["cluster_id"]
    assert clusters["a"]["cluster_size"] == 2 and clusters["c"]["cluster_size"] == 1
    assert clusters["c"]["cluster_id"] != clusters["d"]["cluster_id"]


def test_projection_uses_pca_for_tiny_sets_and_umap_otherwise():
    rng = np.random.default_rng(0)
    coords, method = project_2d(rng.normal(size=(3, 8)))
    assert method == "pca" and coords.shape == (3, 2)
    coords, method = project_2d(rng.normal(size=(12, 8)))
    assert method == "umap" and coords.shape == (12, 2) and np.isfinite(coords).all()


@pytest.mark.slow
def test_minilm_finds_the_paraphrase_pair():
    questions = pd.DataFrame(
        {
            "question_id": ["q1", "q2", "q3", "q4", "q5", "q6"],
            "qtype": ["Q7", "Q7", "Q2", "Q2", "N2", "N2"],
            "text": [
                "At the railroad station, what does Delta Slim make of Stack's pitch?",
                "At the railway station, what does Delta Slim make of Stack's offer?",
                "In the courtyard corridor, when does Tremblay's view of Lawrence change?",
                "In the Harding nursery, what danger does Louise believe she faces?",
                "In the garage, how has Grace's view of Beau changed since they met?",
                "At the Chinese restaurant, what discoveries shaped Sandra's view of the case?",
            ],
        }
    )
    analytics = analyze_questions(questions)
    pairs = {(p["question_a"], p["question_b"]) for p in analytics.pairs}
    assert pairs == {("q1", "q2")}
    assert len(analytics.points) == 6 and analytics.points[0]["model"] == "all-MiniLM-L6-v2+umap"
    assert len(analytics.points[0]["vector"]) == 384
    by_type = {row["qtype"]: row for row in analytics.diversity}
    assert (
        by_type["*"]["n_questions"] == 6
        and by_type["Q7"]["self_bleu_2"] > by_type["Q2"]["self_bleu_2"]
    )


@pytest.mark.slow
def test_lab_queries_read_what_the_run_stored(store):
    report = generate(store, GenerateOptions(build_film(store), n=20))
    run_id = report.run_id
    runs = qlab_view.qgen_runs(store)
    assert runs.iloc[0]["run_id"] == run_id and runs.iloc[0]["backend"] == "template"

    points = qlab_view.umap_points(store, run_id)
    assert len(points) == 20 and points[["x", "y"]].notna().all().all()
    assert set(points["projection"]) == {"all-MiniLM-L6-v2+umap"}
    diversity = qlab_view.self_bleu(store, run_id)
    assert diversity.iloc[0]["qtype"] == "*" and diversity.iloc[0]["n_questions"] == 20
    assert 0 < diversity.iloc[0]["self_bleu_4"] < diversity.iloc[0]["self_bleu_2"] <= 100
    frames = qlab_view.opening_frames(store, run_id, 2)
    assert (frames.groupby("qtype")["share"].sum() <= 1.0 + 1e-9).all()
    # template Q4 questions about the same holder share most words: some pairs are near-duplicates
    pairs = qlab_view.near_duplicate_pairs(store, run_id)
    assert (pairs["cosine"] >= 0.8).all() and pairs["text_a"].notna().all()
    discards = qlab_view.discard_counts(store, run_id)
    assert discards.set_index(["qtype", "outcome"]).loc[("Q4", "center_never_named"), "n"] == 1
    results = qlab_view.check_results(store, run_id)
    assert len(results) == 20 and results["leak_score"].between(0, 1).all()
    outcomes = qlab_view.outcomes(store, run_id)
    assert len(outcomes) == 20 and set(outcomes["final_status"]) <= {"candidate", "retired"}
    stages = qlab_view.stage_outputs(store, run_id, outcomes.iloc[0]["question_id"])
    assert stages["stage"].tolist() == [1, 2, 3, 4]
    assert json.loads(stages.iloc[0]["payload"])["verdict"] == "ok"


@pytest.mark.slow
def test_check_questions_with_analytics_on_the_paper_sample(store, store_path):
    """`check-questions --analytics` stores the same analytics for questions of any source."""
    from typer.testing import CliRunner

    from data_access.importers import import_lfvqa_dir
    from pipelines.cli import app, load_commands
    from tests.support.paths import REPO_ROOT

    load_commands()
    import_lfvqa_dir(store, REPO_ROOT / "samples" / "lfvqa_paper")
    result = CliRunner().invoke(
        app,
        ["check-questions", "--analytics", "--where", "source=paper", "--store", str(store_path)],
    )
    assert result.exit_code == 0, result.output
    run_id = qlab_view.qgen_runs(store).iloc[0]["run_id"]
    assert len(qlab_view.umap_points(store, run_id)) == 14
    # the released questions are not near-duplicates of one another
    assert qlab_view.near_duplicate_pairs(store, run_id).empty
    diversity = qlab_view.self_bleu(store, run_id).set_index("qtype")
    assert diversity.loc["*", "n_questions"] == 14 and diversity.loc["*", "self_bleu_2"] < 60
