"""PlotTree leaves end with the film's scenes, not a credit cue long after them (The
Departed had 12,287 one-second leaves spanning 3:24:47 against its 2:31:19 runtime; one-second
windows now stop with its last scene at 2:24:00 (8,641), and by default it has one leaf per
scene, 208)."""

from __future__ import annotations

import pandas as pd

from pipelines.plottree.leaves import build_leaves, film_span


def _timeline(cue_times: list[tuple[float, float]], scene_end: float | None) -> dict:
    subtitles = pd.DataFrame(
        {
            "start_s": [a for a, _ in cue_times],
            "end_s": [b for _, b in cue_times],
            "text": [f"cue {i}" for i in range(len(cue_times))],
            "matched_line": [None] * len(cue_times),
        }
    )
    scenes = pd.DataFrame(
        {
            "scene_index": [0],
            "heading": ["INT. ROOM"],
            "location": ["Room"],
            "start_s": [0.0],
            "end_s": [scene_end],
        }
    )
    lines = pd.DataFrame(
        columns=["scene_index", "line_index", "kind", "character", "text", "start_s"]
    )
    return {"subtitles": subtitles, "lines": lines, "scenes": scenes}


def test_leaves_end_with_the_last_scene_and_drop_the_credit_cue():
    # The Departed's shape: the last scene ends at 100 s, a credit cue starts after it (105 s)
    # and runs far past the 120 s runtime
    timeline = _timeline([(10.0, 12.0), (105.0, 7382.0)], scene_end=100.0)
    leaves = build_leaves(timeline, runtime_s=120.0, leaf_seconds=1.0).frame
    assert len(leaves) == 100 and leaves["end_s"].max() == 100.0
    assert not leaves["summary"].str.contains("cue 1").any()
    assert leaves["summary"].str.contains("cue 0").any()


def test_scene_leaves_drop_the_credit_cue_too():
    timeline = _timeline([(10.0, 12.0), (105.0, 7382.0)], scene_end=100.0)
    leaves = build_leaves(timeline, runtime_s=120.0).frame
    assert leaves[["start_s", "end_s"]].values.tolist() == [[0.0, 100.0]]
    assert leaves.iloc[0]["summary"] == "Room Dialogue: cue 0"


def test_the_runtime_caps_a_scene_that_runs_past_it():
    timeline = _timeline([(10.0, 12.0)], scene_end=500.0)
    assert film_span(timeline["subtitles"], timeline["scenes"], 120.0) == 120.0
    assert film_span(timeline["subtitles"], timeline["scenes"]) == 500.0


def test_without_timed_scenes_the_runtime_else_the_subtitles_end_the_film():
    timeline = _timeline([(10.0, 12.0), (50.0, 55.0)], scene_end=None)
    assert film_span(timeline["subtitles"], timeline["scenes"], 90.0) == 90.0
    assert film_span(timeline["subtitles"], timeline["scenes"]) == 55.0
    assert film_span(timeline["subtitles"], timeline["scenes"].iloc[0:0]) == 55.0
