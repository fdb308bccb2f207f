"""The PlotTree icicle labels only boxes big enough to read: Plotly measures every label it
draws (a forced browser layout each), so a 200-leaf view spent ~0.5 s on unreadable slivers."""

from __future__ import annotations

import pandas as pd

from viz.plottree import MIN_LABEL_SHARE, tree_figure


def test_only_boxes_with_a_readable_share_get_a_label():
    small = int(MIN_LABEL_SHARE * 400) - 1  # just under the share of the top node's 400 leaves
    nodes = pd.DataFrame(
        dict(
            node_id=["root", "big", "tiny", "edge"],
            parent_id=[None, "root", "root", "root"],
            level=[1, 0, 0, 0],
            start_s=[0.0, 0.0, 600.0, 700.0],
            end_s=[1200.0, 600.0, 700.0, 1200.0],
            summary=["the whole film", "a long stretch", "a sliver", "exactly the share"],
            leaves=[400, 400 - small - 10, small, 10],
        )
    )
    trace = tree_figure(nodes, "icicle").data[0]
    labelled = dict(zip(trace.ids, trace.texttemplate))
    assert labelled == {"root": "%{label}", "big": "%{label}", "tiny": "", "edge": "%{label}"}
    # every box keeps its label text for the hover
    assert all("·" in label for label in trace.labels)


def test_siblings_are_drawn_in_film_time_order_not_by_size():
    # Plotly's default (sort=True) put the largest child first: The Departed's 50:18 part was
    # drawn above its 0:40 one
    nodes = pd.DataFrame(
        dict(
            node_id=["root", "early", "late"],
            parent_id=[None, "root", "root"],
            level=[1, 0, 0],
            start_s=[0.0, 40.0, 3018.0],
            end_s=[9000.0, 3018.0, 9000.0],
            summary=["the film", "the first part", "the longer second part"],
            leaves=[30, 10, 20],
        )
    )
    trace = tree_figure(nodes, "icicle").data[0]
    assert trace.sort is False and list(trace.ids) == ["root", "early", "late"]
