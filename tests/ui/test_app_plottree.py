"""AppTest: the PlotTree page browses a tree top-down (path up, children down, the node in the
URL), caps what a figure draws on a feature-film-sized tree, and previews retrieval with the
pipeline's own code, so the context shown is the context `plottree ask` sends."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from data_access.store import append_table
from tests.support.app_fixture_data import FILM, PLOTTREE
from tests.support.apptest_pages import figures, metrics, run_page
from tests.support.paths import REPO_ROOT
from viz.plottree import MAX_VIEW_NODES, view_nodes


def test_root_view_shows_the_whole_small_tree_with_readable_labels(fixture_store):
    at = run_page(REPO_ROOT, "plottree_page", {"view": "sunburst"})
    assert not at.exception
    assert metrics(at) == {"Nodes": "7", "Leaves": "4", "Levels": "3"}
    tree = figures(at)["tree"].data[0]
    assert tree.type == "sunburst" and list(tree.parents).count("root") == 2
    assert tree.labels[0] == "0:00–1:00:00 · A keeper waits for a boat that …"
    level_time = figures(at)["level_time"].data[0]
    assert list(level_time.text) == ["root", "n1_0", "n1_1", "n0_0", "n0_1", "n0_2", "n0_3"]
    # the picker is bound to the URL (bind="query-params"): its default, the root, needs none
    assert "node" not in at.query_params
    # the picker holds the way up and the way down only
    assert at.selectbox(key="node").options[0].startswith("L2 · 0:00–1:00:00")
    assert len(at.selectbox(key="node").options) == 3


def test_a_node_from_the_url_opens_with_its_path_and_children(fixture_store):
    at = run_page(REPO_ROOT, "plottree_page", {"node": "n1_1"})
    assert not at.exception
    level_time = figures(at)["level_time"].data[0]
    assert list(level_time.text) == ["n1_1", "n0_2", "n0_3"]
    assert list(level_time.marker.line.width).count(3) == 1  # the picked node
    assert any("25:00–1:00:00" in h.value for h in at.subheader)
    assert any("2 leaves" in m.value for m in at.markdown)
    assert list(at.dataframe[0].value.index) == ["n0_2", "n0_3"]  # its children
    picker = at.selectbox(key="node")
    assert len(picker.options) == 4  # root, n1_1, and two children
    picker.set_value("n0_3").run()
    # the URL holds the picker's label, and a shared copy of it reopens the same node
    assert at.query_params["node"].startswith("L0 · 40:00–1:00:00 · At the jetty")
    shared = run_page(REPO_ROOT, "plottree_page", {"node": at.query_params["node"]})
    assert shared.selectbox(key="node").value == "n0_3"
    assert any("At the jetty Ann learns the boat was cancelled" in m.value for m in at.markdown)
    at.radio(key="view").set_value("icicle").run()
    assert figures(at)["tree"].data[0].type == "icicle"


def _big_tree(film_id: str, fanout: int = 20, levels: int = 3) -> pd.DataFrame:
    """A tree the size of Chinatown's (1 + 20 + 400 + 8,000 = 8,421 nodes), 1 s per leaf."""
    rows, frontier = [], [("big:root", None, 0.0, float(fanout**levels))]
    for level in range(levels, -1, -1):
        below = []
        for node_id, parent, start, end in frontier:
            rows.append((node_id, parent, level, start, end, f"summary of {node_id} words here"))
            if level:
                step = (end - start) / fanout
                below += [
                    (f"{node_id}.{k}", node_id, start + k * step, start + (k + 1) * step)
                    for k in range(fanout)
                ]
        frontier = below
    frame = pd.DataFrame(
        rows, columns=["node_id", "parent_id", "level", "start_s", "end_s", "summary"]
    )
    frame["film_id"] = film_id
    return frame


def test_a_feature_film_sized_tree_draws_a_capped_neighbourhood(fixture_store):
    nodes = _big_tree(FILM)
    run_id = fixture_store.scalar("SELECT run_id FROM plottree_nodes LIMIT 1")
    children = nodes.groupby("parent_id")["node_id"].agg(list)
    table = nodes.assign(
        leaf_indices=[[0]] * len(nodes),
        summary_backend="extractive",
        children=nodes["node_id"].map(children).map(lambda c: c if isinstance(c, list) else []),
        characters=[["Ann"]] * len(nodes),
        run_id=run_id,
    )
    with fixture_store.transaction() as cursor:
        cursor.execute("DELETE FROM plottree_nodes")
        append_table(cursor, "plottree_nodes", table)
    at = run_page(REPO_ROOT, "plottree_page", {"node": "big:root"})
    assert not at.exception
    assert metrics(at)["Nodes"] == str(len(nodes))
    at.slider(key="depth").set_value(4).run()
    drawn = figures(at)["tree"].data[0].ids
    assert len(drawn) == 1 + 20  # the next level (400) would pass the cap: left out whole
    assert any("drill down" in c.value for c in at.caption)
    assert len(at.selectbox(key="node").options) == 1 + 20


def _store_fixture_vectors(store) -> None:
    from data_access.tables.vectors import pack_f16
    from pipelines.embeddings import MODEL_NAME, embed_texts

    vectors = embed_texts([row[6] for row in PLOTTREE])
    run_id = store.scalar("SELECT run_id FROM plottree_nodes LIMIT 1")
    # node vectors live in plottree_vectors as float16 blobs (migration 761), as the build writes
    frame = pd.DataFrame(
        {
            "run_id": run_id,
            "node_id": [row[0] for row in PLOTTREE],
            "model": MODEL_NAME,
            "vector": pack_f16(np.asarray(vectors, dtype=np.float32)),
        }
    )
    with store.transaction() as cursor:
        append_table(cursor, "plottree_vectors", frame)


@pytest.mark.slow
def test_retrieval_preview_is_the_pipeline_retrieval(fixture_store):
    from pipelines.plottree.ask import ask, free_question
    from pipelines.plottree.retrieval import qa_messages

    _store_fixture_vectors(fixture_store)
    question = "When does Ann learn the boat was cancelled?"
    at = run_page(REPO_ROOT, "plottree_page", {"ask": question, "m": "2"}, timeout=180)
    assert not at.exception
    retrieved = next(d.value for d in at.dataframe if "score" in d.value)
    assert set(retrieved["node_id"]) == {"n0_3", "n1_1"}
    assert retrieved.set_index("node_id")["score"].idxmax() == "n0_3"
    assert list(retrieved["node_id"]) == ["n1_1", "n0_3"]  # chronological, §5.2
    shown = at.text_area(key="context").value
    [(retrieval, _)] = ask(fixture_store, FILM, [free_question(question)], top_m=2)
    sent = "\n\n".join(m["content"] for m in qa_messages(retrieval.context, question, None))
    assert shown == sent
    colours = figures(at)["tree"].data[0].marker.colors
    assert list(colours).count("#d62728") == 2
    hits = [t for t in figures(at)["level_time"].data if t.name == "retrieval hits"]
    assert len(hits[0].x) == 2


def test_view_keeps_whole_levels_and_caps_a_huge_first_level():
    nodes = _big_tree("big", fanout=20, levels=3)
    view, cut = view_nodes(nodes, "big:root", depth=3, max_nodes=MAX_VIEW_NODES)
    assert cut and len(view) == 21 and set(view["level"]) == {3, 2}
    view, cut = view_nodes(nodes, "big:root.0", depth=3, max_nodes=MAX_VIEW_NODES)
    assert cut and len(view) == 21  # 1 + 20; the 400 leaves below would pass the cap
    view, cut = view_nodes(nodes, "big:root", depth=1, max_nodes=10)
    assert cut and len(view) == 10  # the first level alone passes the cap: its first nodes
    view, cut = view_nodes(nodes, "big:root.0.0", depth=4, max_nodes=MAX_VIEW_NODES)
    assert not cut and len(view) == 21
