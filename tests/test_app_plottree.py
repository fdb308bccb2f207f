"""AppTest: the PlotTree page browses the fixture tree and previews retrieval."""

from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT
from tests.support.app_fixtures import build_app_fixture, figures, metrics, run_page


@pytest.fixture
def fixture_store(store):
    return build_app_fixture(store)


def test_tree_views_and_node_detail(fixture_store):
    at = run_page(REPO_ROOT, "plottree_page", {"node": "n1_1", "view": "sunburst"})
    assert not at.exception
    assert metrics(at) == {"Nodes": "7", "Leaves": "4", "Levels": "3"}
    specs = figures(at)
    assert specs["tree"].data[0].type == "sunburst"
    assert list(specs["tree"].data[0].parents).count("root") == 2
    level_time = specs["level_time"].data[0]
    assert list(level_time.text) == ["root", "n1_0", "n1_1", "n0_0", "n0_1", "n0_2", "n0_3"]
    assert list(level_time.marker.line.width).count(3) == 1  # the picked node
    assert any("25:00–1:00:00" in m.value and "2 leaves" in m.value for m in at.markdown)
    at.radio(key="view").set_value("icicle").run()
    assert figures(at)["tree"].data[0].type == "icicle"


@pytest.mark.slow
def test_retrieval_preview_ranks_the_matching_leaf_first(fixture_store):
    at = run_page(
        REPO_ROOT,
        "plottree_page",
        {"ask": "When does Ann learn the boat was cancelled?", "m": "2"},
        timeout=180,
    )
    assert not at.exception
    retrieved = at.dataframe[0].value
    assert set(retrieved["node_id"]) == {"n0_3", "n1_1"}
    assert retrieved.set_index("node_id")["score"].idxmax() == "n0_3"
    # chronological order, as the context is built in §5.2
    assert list(retrieved["node_id"]) == ["n1_1", "n0_3"]
    assert at.text_area(key="context").value.splitlines()[1].startswith("[n0_3] At the jetty")
    assert any("minilm-cosine" in c.value for c in at.caption)
    colours = figures(at)["tree"].data[0].marker.colors
    assert list(colours).count("#d62728") == 2
