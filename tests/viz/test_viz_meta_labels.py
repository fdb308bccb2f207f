"""Meta-belief markers at one scene share one star and one label (two "M38" were
printed on top of each other)."""

from __future__ import annotations

import pandas as pd

from viz.beliefs import belief_lanes_figure


def _meta(ids: list[str], scenes: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "holder": ["Ann"] * len(ids),
            "meta_id": ids,
            "about": ["Ben"] * len(ids),
            "scene_index": scenes,
            "start_s": [60.0 * s for s in scenes],
            "claim": [f"claim {i}" for i in ids],
            "type": ["first-order"] * len(ids),
            "change": [None] * len(ids),
            "source": ["saw"] * len(ids),
            "order_depth": [2] * len(ids),
            "basis": [""] * len(ids),
        }
    )


def _empty_beliefs() -> pd.DataFrame:
    return pd.DataFrame(
        columns=["holder", "belief_id", "kind", "start_s", "scene_index", "revises", "rejected"]
    )


def test_meta_beliefs_at_one_scene_share_a_label():
    meta = _meta(["M38", "M38", "M39", "M40"], [3, 3, 3, 5])
    figure = belief_lanes_figure(_empty_beliefs(), meta)
    (stars,) = [t for t in figure.data if t.name == "meta-belief"]
    assert list(stars.text) == ["M38 ×2 +1", "M40"]
    assert list(stars.x) == [3.0, 5.0]
    assert list(stars.textposition) == ["top center", "bottom center"]  # neighbours alternate
    assert stars.hovertext[0].count("<br>") == 2  # all three listed in the hover


def test_a_label_below_the_last_lane_has_room_above_the_axis():
    """The last lane's labels drawn below their star ran into the time axis ("M8 +1" cut)."""
    figure = belief_lanes_figure(_empty_beliefs(), _meta(["M1", "M2"], [3, 5]))
    bottom, top = figure.layout.yaxis.range
    assert bottom - 0.5 >= 0.5 and top == -0.5  # one lane (row 0); half a row spare below it
