"""Demo steps 50 (MCQ analytics) and 55 (PlotTrees) on fixture data built in code."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_access.tables.mcq import current_difficulty
from pipelines.demo import step_50_mcq_analytics, step_55_plottrees
from tests.support.mcq_records import load_records, make_mcq
from tests.support.plottree_film import FILM, write_fixture_film


@pytest.mark.slow
def test_steps_fill_difficulty_trees_and_retrievals(store, monkeypatch):
    messages = []
    step_50_mcq_analytics.run(store, None, messages.append)
    assert messages == ["  no golden MCQs in the store; skipped"]
    records = [
        make_mcq(
            "Movie",
            FILM,
            i,
            "PI"[i % 2],
            "C",
            question=f"Who fixes lamp {i}?",
            times=["00:08:20-00:08:26"],
            characters=["Ann"],
            locations=["Lamp Room"],
        )
        for i in range(9)
    ]
    load_records(store, records)
    step_50_mcq_analytics.run(store, None, messages.append)
    assert len(current_difficulty(store, "golden")) == 9
    assert any("gini" in m for m in messages)

    write_fixture_film(store)
    monkeypatch.setattr(step_55_plottrees, "DATASET_ID", "fixture")
    step_55_plottrees.run(store, None, messages.append)
    assert messages[-1] == "  no --data-dir; skipped"
    step_55_plottrees.run(store, Path("."), messages.append)
    # one leaf per scene (the fixture film has four) under the root
    assert (
        store.scalar("SELECT count(*) FROM current_plottree_nodes WHERE film_id = ?", [FILM]) == 5
    )
    assert store.scalar("SELECT count(*) FROM plottree_retrievals WHERE film_id = ?", [FILM]) == 9
    # ... each answered by the offline PlotTree QA method, its predictions under the same run
    assert (
        store.scalar(
            "SELECT count(*) FROM mcq_predictions p JOIN plottree_retrievals r"
            " ON r.run_id = p.run_id AND r.item_id = p.mcq_id"
            " WHERE p.method = 'plottree:minilm-option-match'"
            " AND r.answer_option = p.predicted_option"
        )
        == 9
    )
    assert messages[-1].startswith("  1 PlotTrees built in ")
    step_55_plottrees.run(store, Path("."), messages.append)  # second run: nothing rebuilt
    assert any("tree already built" in m for m in messages)
    assert messages[-1].startswith("  0 PlotTrees built in ")
    monkeypatch.setattr(step_55_plottrees, "DATASET_ID", "nothing-imported")
    step_55_plottrees.run(store, Path("."), messages.append)
    assert "no nothing-imported videos with subtitles" in messages[-1]


def test_demo_builds_films_before_episodes(store, monkeypatch):
    for film_id in ("b-episode", "z-film", "a-episode"):
        write_fixture_film(store, film_id)
    kinds = {"b-episode": "episode", "a-episode": "episode", "z-film": "film"}
    with store.transaction() as cursor:
        for film_id, kind in kinds.items():
            cursor.execute("UPDATE films SET kind = ? WHERE film_id = ?", [kind, film_id])
    monkeypatch.setattr(step_55_plottrees, "DATASET_ID", "fixture")
    assert step_55_plottrees.videos_to_build(store) == ["z-film", "a-episode", "b-episode"]
