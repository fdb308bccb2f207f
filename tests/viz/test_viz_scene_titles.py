"""Film page scene names: a scene without a heading is named by its location or time, never
"S0 · nan"."""

from __future__ import annotations

import pandas as pd

from viz.film import scene_titles


def test_scene_titles_fall_back_to_location_then_time():
    scenes = pd.DataFrame(
        {
            "scene_index": [0, 1, 2, 3],
            "heading": ["INT. KITCHEN - NIGHT", None, float("nan"), "  "],
            "location": [None, "Harbour", None, None],
            "start_s": [0.0, 60.0, 754.0, float("nan")],
        }
    )
    assert list(scene_titles(scenes)) == [
        "S0 · INT. KITCHEN - NIGHT",
        "S1 · Harbour",
        "S2 · 12:34",
        "S3 · (no heading)",
    ]
    # a scene with an end is named by its span on the film's clock, not "S0 · from 0 min"
    spans = scenes.assign(heading=None, location=None, end_s=[95.0, 130.0, 800.0, None])
    assert list(scene_titles(spans))[:3] == ["S0 · 0:00–1:35", "S1 · 1:00–2:10", "S2 · 12:34–13:20"]
