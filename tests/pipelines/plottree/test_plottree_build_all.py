"""`storyscope plottree build --all`: dataset filter, resume with --skip-built, embedding choice."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from tests.support.plottree_film import write_fixture_film

load_commands()


def build(store, *args):
    return CliRunner().invoke(
        app, ["plottree", "build", *args, "--leaf-seconds", "10", "--store", str(store.path)]
    )


def test_build_all_filters_by_dataset_and_resumes(store):
    write_fixture_film(store, "film-a")
    write_fixture_film(store, "film-b")
    first = build(store, "--film", "film-a", "--json")
    assert first.exit_code == 0, first.output
    assert [t["film_id"] for t in json.loads(first.stdout)["trees"]] == ["film-a"]
    resumed = build(store, "--all", "--dataset", "fixture", "--skip-built", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert [t["film_id"] for t in json.loads(resumed.stdout)["trees"]] == ["film-b"]
    params = json.loads(
        store.scalar("SELECT params FROM runs WHERE step = 'plottree.build' AND source = 'film-b'")
    )
    assert params["node_embedding"] == "segment-pooled"
    done = build(store, "--all", "--skip-built")
    assert done.exit_code != 0 and "no film with subtitles left to build" in done.output
    other = build(store, "--all", "--dataset", "nope")
    assert other.exit_code != 0


def test_build_rejects_an_unknown_node_embedding(store):
    write_fixture_film(store)
    result = build(store, "--film", "fixture-film", "--node-embedding", "bogus")
    assert result.exit_code != 0 and "--node-embedding 'bogus'" in result.output
    assert store.scalar("SELECT count(*) FROM plottree_nodes") == 0
