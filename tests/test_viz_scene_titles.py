"""Film page scene names: a scene without a heading is named by its location or time, never
"S0 · nan" (issue 16)."""

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
        "S2 · from 12 min",
        "S3 · (no heading)",
    ]
