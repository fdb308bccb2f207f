"""PlotTree (§5): leaves from the text timeline, condensation, retrieval, CLI, and real films."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.tables.plottree_records import film_timeline
from pipelines.cli import app, load_commands
from pipelines.plottree.build import build_nodes
from pipelines.plottree.condense import (
    cluster_count,
    decay,
    extractive_summary,
    plot_distance,
    plot_kmeans,
)
from pipelines.plottree.leaves import build_leaves, direction_times
from tests.support.plottree_film import FILM, SCENES, hashed_embed, write_fixture_film

load_commands()


def test_decay_and_cluster_count_follow_the_paper():
    assert decay(0) == pytest.approx(100.0) and decay(1) == pytest.approx(1 / 10.01)
    assert decay(2) < decay(1) < decay(0)
    assert cluster_count(7200) == 200 and cluster_count(200) == 5 and cluster_count(5) == 1
    assert cluster_count(35) == 1 and cluster_count(72) == 2


def test_plot_distance_adds_time_and_cosine_terms():
    vectors = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    d = plot_distance(
        vectors, np.array([0.0, 50.0]), vectors, np.array([0.0, 50.0]), lam=2.0, n_leaves=100
    )
    assert d[0, 0] == pytest.approx(0.0) and d[0, 1] == pytest.approx(2.0 * 0.5 + 1.0)


def test_low_levels_cluster_by_time_high_levels_by_meaning():
    # two topics alternating in time: A B A B ...; λ(0) = 100 -> contiguous time runs,
    # a small λ -> one cluster per topic
    n = 72
    topic = np.arange(n) // 9 % 2
    vectors = np.where(topic[:, None] == 0, [1.0, 0.0], [0.0, 1.0]).astype(np.float32)
    times = np.arange(n, dtype=float)
    by_time = plot_kmeans(vectors, times, 2, decay(0), n)
    assert (np.diff(by_time) >= 0).all()  # contiguous stretches
    by_topic = plot_kmeans(vectors, times, 2, 0.01, n)
    assert len(set(zip(by_topic, topic))) == 2  # clusters == topics


def test_leaves_carry_dialogue_characters_and_directions(store):
    write_fixture_film(store)
    timeline = film_timeline(store, FILM)
    est = direction_times(timeline["lines"], timeline["scenes"])
    assert est.iloc[0] == 0.0 and est.iloc[2] == 150.0  # directions start with their scene
    assert est.iloc[3] == 160.0  # a timed line keeps its time
    leaves = build_leaves(timeline, 600.0, leaf_seconds=1.0).frame
    assert len(leaves) == 600 and leaves["t"].tolist() == list(range(600))
    at_161 = leaves.iloc[161]
    assert "supply boat" in at_161["summary"] and "Kitchen" in at_161["summary"]
    assert at_161["characters"][0] == "Ben" and "Ann" in at_161["characters"]
    assert "Dialogue" not in leaves.iloc[200]["summary"]
    assert "Ben pours tea" in leaves.iloc[200]["summary"]
    assert len(build_leaves(timeline, 600.0, leaf_seconds=10.0).frame) == 60


def test_tree_structure_with_a_fake_embedder(store):
    write_fixture_film(store)
    leaves = build_leaves(film_timeline(store, FILM), 600.0, leaf_seconds=1.0).frame
    nodes, vectors = build_nodes(leaves, "f:", embed=hashed_embed)
    by_level = pd.Series([n.level for n in nodes]).value_counts().sort_index()
    assert by_level.tolist() == [600, 16, 1]  # K^0 = ⌊600/36⌋ = 16, then the root
    assert len(vectors) == len(nodes)
    root = nodes[-1]
    assert root.parent_id is None and root.level == 2 and root.leaf_indices == list(range(600))
    level1 = [n for n in nodes if n.level == 1]
    assert sorted(i for n in level1 for i in n.leaf_indices) == list(range(600))
    assert all(n.t == min(n.leaf_indices) for n in level1)  # parent time = min child time
    assert all(n.parent_id for n in nodes[:-1])
    assert root.summary_backend == "extractive-centroid"


def test_extractive_summary_keeps_time_order_and_dedupes():
    vectors = np.array([[1, 0], [1, 0], [0.9, 0.1], [0, 1]], dtype=np.float32)
    text = extractive_summary(["first", "first", "second", "far"], vectors, keep=2)
    assert text == "first … second"


def test_the_cli_cuts_one_leaf_per_timed_scene_unless_asked_for_windows(store):
    write_fixture_film(store)
    result = CliRunner().invoke(
        app, ["plottree", "build", "--film", FILM, "--json", "--store", str(store.path)]
    )
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)["trees"][0]
    assert tree["leaf_backend"] == "scene-window" and tree["n_leaves"] == len(SCENES)


@pytest.mark.slow
def test_build_and_ask_through_the_cli(store):
    write_fixture_film(store)
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["plottree", "build", "--film", FILM, "--leaf-seconds", "1", "--json"]
        + ["--store", str(store.path)],
    )
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)["trees"][0]
    assert tree["n_leaves"] == 600 and tree["n_nodes"] == 617 and tree["levels"] == 2
    result = runner.invoke(
        app,
        [
            "plottree",
            "ask",
            "--film",
            FILM,
            "Who took the spare key?",
            "--json",
            "--top-m",
            "5",
            "--store",
            str(store.path),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["answer"] is None and len(payload["nodes"]) == 5
    assert set(payload["nodes"][0]) == {"id", "level", "score", "start", "end"}
    starts = [n["start"] for n in payload["nodes"]]
    assert starts == sorted(starts)  # chronological context
    best = max(payload["nodes"], key=lambda n: n["score"])
    assert 300 <= best["start"] < 450 or best["level"] > 0  # the harbour scene (or a parent)
    stored = store.df("SELECT * FROM plottree_retrievals")
    assert len(stored) == 1 and stored["answer"].isna().all()
    bad = runner.invoke(app, ["plottree", "ask", "--film", "nope", "q", "--store", str(store.path)])
    assert bad.exit_code != 0 and "no PlotTree" in bad.output


@pytest.mark.slow
def test_condensation_and_qa_through_the_gateway(store, fake_llm):
    from pipelines.plottree.ask import Question, ask
    from pipelines.plottree.build import build_film_tree

    def scripted(body, number):
        user = body["messages"][-1]["content"]
        if user.startswith("Plot descriptions:"):
            return "Condensed plot of the lighthouse story."
        return "B" if "spare key" in user else "A"

    write_fixture_film(store)
    config = fake_llm.config(fake_llm(scripted), structured="none")
    built = build_film_tree(store, FILM, leaf_seconds=5.0, llm_config=config)
    assert built.n_leaves == 120 and built.levels == 2 and built.backend == "llm:fake-model"
    summaries = store.df(
        "SELECT summary, summary_backend FROM current_plottree_nodes WHERE level > 0"
    )
    assert (summaries["summary"] == "Condensed plot of the lighthouse story.").all()
    assert (
        store.scalar("SELECT count(*) FROM llm_calls WHERE run_id = ?", [built.run_id]) == 4
    )  # K^0 = 3, root
    question = Question("mcq:1", "Who took the spare key?", ["Ann", "Cara", "Ben", "Dan", "Eve"])
    [(retrieval, answer)] = ask(store, FILM, [question], top_m=4, llm_config=config)
    assert answer == "B" and len(retrieval.nodes) == 4
    row = store.df("SELECT answer, answer_option, answer_backend FROM plottree_retrievals")
    assert row.iloc[0].tolist() == ["B", "B", "llm:fake-model"]


def test_build_unknown_film_is_a_clear_error(store):
    result = CliRunner().invoke(
        app, ["plottree", "build", "--film", "nope", "--store", str(store.path)]
    )
    assert result.exit_code != 0 and "unknown film 'nope'" in result.output


def test_a_scene_without_heading_or_location_gives_no_nan_place(store):
    write_fixture_film(store)
    timeline = film_timeline(store, FILM)
    timeline["scenes"] = timeline["scenes"].assign(location=np.nan, heading=None)
    leaves = build_leaves(timeline, 600.0, leaf_seconds=1.0).frame
    assert not leaves["summary"].str.contains("nan").any()
    assert leaves.iloc[200]["summary"].startswith("Ben pours tea")
