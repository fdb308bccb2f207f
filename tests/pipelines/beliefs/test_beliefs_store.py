"""Belief records in the store: ToM imports, the page queries, the CLI and the demo step."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from data_access.tables import belief_records
from pipelines.beliefs.tom.importers import import_tom
from pipelines.cli import app, load_commands
from tests.support.paths import REPO_ROOT

HITOM_SAMPLE = REPO_ROOT / "samples" / "tom" / "hitom_subset.json"
BIGTOM_SAMPLE = REPO_ROOT / "samples" / "tom" / "bigtom_subset.csv"
runner = CliRunner()
load_commands()


def _count(store, table):
    return store.scalar(f"SELECT count(*) FROM {table}")


def test_hitom_sample_import_records_and_queries(store):
    summary = import_tom(store, "hitom", HITOM_SAMPLE)
    assert summary.stories == 22
    assert _count(store, "films") == 22
    assert store.scalar("SELECT count(DISTINCT kind) FROM films") == 1
    runs = store.df("SELECT step, backend, status FROM runs ORDER BY step")
    assert runs.to_dict("records") == [
        {"step": "beliefs.track", "backend": "symbolic-tracker", "status": "finished"},
        {"step": "import.hitom", "backend": "import", "status": "finished"},
    ]
    # Story 0 of the sample: Avery moves the lettuce, leaves; Charlotte and Owen move it again.
    film = "hitom-cotp-0000"
    state = belief_records.belief_state_at(store, film, "Avery", 20)
    assert list(state["content"]) == ["the lettuce is in the green_bathtub"]
    assert bool(state["is_false"].iloc[0])
    owen = belief_records.belief_state_at(store, film, "Owen", 20)
    assert list(owen["content"]) == ["the lettuce is in the green_drawer"]
    meta = belief_records.meta_beliefs_about(store, film, "Owen", "Avery")
    assert meta["claim"].iloc[-1] == "the lettuce is in the green_bathtub"
    assert set(meta["source"]) == {"shared_witnessing"}
    events = store.df(
        "SELECT event_id, witnesses FROM scene_events WHERE film_id = ? ORDER BY scene_index",
        [film],
    )
    assert events["event_id"].iloc[2] == "e_002_1"  # "Avery moved the lettuce ..."
    assert sorted(events["witnesses"].iloc[2]) == [
        "Avery",
        "Charlotte",
        "Elizabeth",
        "Isabella",
        "Owen",
    ]


def test_deep_meta_beliefs_for_the_asked_chain(store):
    import_tom(store, "hitom", HITOM_SAMPLE)
    deep = store.df(
        "SELECT holder, about, claim, order_depth FROM meta_beliefs WHERE order_depth = 4"
    )
    assert not deep.empty
    assert deep["claim"].str.count(" thinks ").min() == 2


def test_rejected_tell_is_kept_as_not_believed(store):
    """Hi-ToM's trust rule on story #600, worked out by hand from its text: Charlotte leaves the
    hall at sentence 10; William (5) and Jack (8) left before her, Noah (13) and Hannah (15)
    after. At sentence 17 Charlotte publicly claims the carrot is in the green_envelope (it is
    in the red_basket): William and Jack trust her, Noah and Hannah do not. At 18 Hannah, who
    left after Charlotte, privately tells her it is in the blue_container: Charlotte trusts her."""
    import_tom(store, "hitom", HITOM_SAMPLE)
    told = store.df(
        "SELECT holder, source_character, content, scene_index, believed, basis,"
        " revised_at_scene, is_false, trigger FROM beliefs"
        " WHERE film_id = 'hitom-cotp-0600' AND kind = 'told' ORDER BY holder"
    )
    by_holder = {row.holder: row for row in told.itertuples(index=False)}
    assert set(by_holder) == {"Hannah", "Noah", "William", "Jack", "Charlotte"}
    claim = "the carrot is in the green_envelope"
    for holder in ("Noah", "Hannah"):  # rejected, and kept as such
        row = by_holder[holder]
        assert (row.source_character, row.content, row.believed) == ("Charlotte", claim, False)
        assert (row.scene_index, list(row.basis)) == (16, ["e_016_1"])  # sentence 17
        assert row.revised_at_scene == 17 and row.is_false and "not trusted" in row.trigger
    for holder in ("William", "Jack"):  # trusted
        row = by_holder[holder]
        assert (row.source_character, row.content, row.believed) == ("Charlotte", claim, True)
    tell = by_holder["Charlotte"]
    assert (tell.source_character, tell.content, tell.believed, tell.scene_index) == (
        "Hannah",
        "the carrot is in the blue_container",
        True,
        17,
    )
    # across the sample: every rejection names someone else as source and ends where it formed
    rejected = store.df(
        "SELECT holder, source_character, scene_index, revised_at_scene FROM beliefs"
        " WHERE kind = 'told' AND believed = false"
    )
    assert len(rejected) > 2
    assert (rejected["holder"] != rejected["source_character"]).all()
    assert (rejected["revised_at_scene"] == rejected["scene_index"] + 1).all()


def test_bad_file_leaves_the_store_unchanged(store, tmp_path):
    import_tom(store, "bigtom", BIGTOM_SAMPLE)
    before = {t: _count(store, t) for t in ("films", "scenes", "beliefs", "runs")}
    broken = tmp_path / "hitom.json"
    data = json.loads(HITOM_SAMPLE.read_text())
    data["data"][5]["question"] = "Who knows?"
    broken.write_text(json.dumps(data))
    result = runner.invoke(
        app, ["beliefs", "import", "hitom", str(broken), "--store", str(store.path)]
    )
    assert result.exit_code == 2
    assert "record 5: field 'question'" in result.output
    assert "Traceback" not in result.output
    assert {t: _count(store, t) for t in before} == before


def test_cli_eval_json_is_exactly_the_issue_shape(tmp_path):
    result = runner.invoke(app, ["beliefs", "eval", "hitom", str(HITOM_SAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert list(payload) == ["n", "accuracy", "by_order"]
    # One CoTP label (item 82, order 4) follows the symmetric update, not the generator reading.
    assert payload["n"] == 22 and payload["accuracy"] == pytest.approx(21 / 22, abs=1e-4)
    assert set(payload["by_order"]) == {"0", "1", "2", "3", "4"}


def test_cli_import_and_eval_errors(store, tmp_path):
    result = runner.invoke(app, ["beliefs", "eval", "bigtom", str(tmp_path / "missing.csv")])
    assert result.exit_code == 2 and "no such file" in result.output
    result = runner.invoke(
        app,
        [
            "beliefs",
            "import",
            "bigtom",
            str(BIGTOM_SAMPLE),
            "--store",
            str(store.path),
            "--limit",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["stories"] == 2


def test_demo_step_imports_samples_once(store):
    from pipelines.demo import step_40_tom_samples

    messages = []
    step_40_tom_samples.run(store, None, messages.append)
    films = _count(store, "films")
    assert films == 22 + 24
    step_40_tom_samples.run(store, None, messages.append)
    assert _count(store, "films") == films
    assert any("already in the store" in m for m in messages)
