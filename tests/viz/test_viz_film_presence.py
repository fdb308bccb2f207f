"""The Film page's presence grid at film scale: most present characters first, capped rows,
screenplay names escaped."""

from __future__ import annotations

import pandas as pd

from viz.film import characters_by_presence, presence_grid_figure


def test_presence_grid_puts_the_most_present_first_and_caps_the_rows():
    presence = pd.DataFrame(
        dict(
            scene_index=[0, 1, 2, 0, 1, 0],
            character=["Zed", "Zed", "Zed", "Amy", "Amy", "<b>Bit</b>"],
            status=["on_screen"] * 5 + ["offscreen_unaware"],
        )
    )
    assert characters_by_presence(presence) == ["Zed", "Amy", "<b>Bit</b>"]
    full = presence_grid_figure(presence)
    # top row first on screen: Plotly draws the category array bottom-up
    assert list(full.layout.yaxis.categoryarray) == ["&lt;b&gt;Bit&lt;/b&gt;", "Amy", "Zed"]
    capped = presence_grid_figure(presence, limit=2)
    assert list(capped.layout.yaxis.categoryarray) == ["Amy", "Zed"]
    assert {y for trace in capped.data for y in trace.y if y is not None} == {"Amy", "Zed"}
