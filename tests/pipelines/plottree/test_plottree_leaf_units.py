"""PlotTree leaves follow the film's units: one per timed scene, else subtitle clips;
credits dropped, never past the runtime; fixed windows only when a caller asks for them."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from data_access.tables.plottree_records import film_timeline
from pipelines.plottree import build as plottree_build
from pipelines.plottree.build import build_film_tree
from pipelines.plottree.leaf_units import (
    CLIP_MAX_S,
    clip_groups,
    drop_credit_cues,
    leaf_backend,
)
from pipelines.plottree.leaves import DIRECTION_WORDS, build_leaves
from pipelines.plottree.scaled import build_trees
from pipelines.scale.executor import make_executor
from tests.support.plottree_film import FILM, hashed_embed, write_fixture_film

LINE_COLUMNS = ["scene_index", "line_index", "kind", "character", "text", "start_s", "end_s"]


def timeline(cues, scenes=(), lines=()) -> dict:
    """A timeline built in code: cues (start, end, text), scenes (index, location, start, end),
    lines (scene, kind, character, text)."""
    subtitles = pd.DataFrame(
        {
            "start_s": [float(a) for a, _, _ in cues],
            "end_s": [float(b) for _, b, _ in cues],
            "text": [t for _, _, t in cues],
            "matched_line": [None] * len(cues),
        }
    )
    scene_frame = pd.DataFrame(
        [
            {"scene_index": i, "heading": f"INT. {loc.upper()}", "location": loc}
            | {"start_s": start, "end_s": end}
            for i, loc, start, end in scenes
        ],
        columns=["scene_index", "heading", "location", "start_s", "end_s"],
    )
    line_frame = pd.DataFrame(
        [
            {"scene_index": s, "line_index": n, "kind": k, "character": c, "text": t}
            | {"start_s": None, "end_s": None}
            for n, (s, k, c, t) in enumerate(lines)
        ],
        columns=LINE_COLUMNS,
    )
    return {"subtitles": subtitles, "lines": line_frame, "scenes": scene_frame}


def spans(frame: pd.DataFrame) -> list[tuple[float, float]]:
    return list(zip(frame["start_s"], frame["end_s"]))


def test_a_film_with_timed_scenes_gets_one_leaf_per_scene(store):
    write_fixture_film(store)
    leaves = build_leaves(film_timeline(store, FILM), 600.0)
    frame = leaves.frame
    assert leaves.backend == "scene-window" and leaves.seconds is None
    assert frame["t"].tolist() == [0, 1, 2, 3] and set(frame["backend"]) == {"scene-window"}
    assert spans(frame) == [(0, 150), (150, 300), (300, 450), (450, 600)]
    assert frame.iloc[1]["summary"] == (
        "Kitchen: Ben pours tea by the stove. Dialogue: The supply boat comes on Friday. "
        "Then we wait for Friday. Characters: Ben, Ann."
    )
    assert frame.iloc[2]["characters"] == ["Cara"]
    assert frame.iloc[3]["summary"].startswith("Lamp Room: The great lamp turns")


def test_every_cue_lands_in_the_scene_its_start_falls_in():
    # scenes at 10-50 and 80-120 (a silent gap between them), runtime 200: the prologue cue
    # before the first scene joins the first leaf, the gap's cue the earlier scene, a cue after
    # the last scene (credits) and one after the runtime belong to no leaf
    cues = [
        (5, 7, "prologue"),
        (20, 22, "first"),
        (60, 62, "in the gap"),
        (100, 102, "second"),
        (130, 135, "credits"),
        (210, 215, "past runtime"),
    ]
    scenes = [(0, "Dock", 10.0, 50.0), (1, "Hall", 80.0, 120.0)]
    frame = build_leaves(timeline(cues, scenes), runtime_s=200.0).frame
    assert spans(frame) == [(5, 80), (80, 120)]
    # one "Dialogue:" part per clip (cues more than 5 s apart)
    assert frame.iloc[0]["summary"] == (
        "Dock Dialogue: prologue Dialogue: first Dialogue: in the gap"
    )
    assert frame.iloc[1]["summary"] == "Hall Dialogue: second"
    assert frame["end_s"].max() <= 200.0


def test_scene_leaves_follow_start_time_skip_untimed_scenes_and_cut_long_directions():
    # The Dark Knight's shape: a scene without a time, and scene numbers out of time order
    long_direction = " ".join(f"w{i}" for i in range(DIRECTION_WORDS + 20))
    scenes = [(0, "Bank", 0.0, 40.0), (1, "Truck", None, None), (2, "Roof", 70.0, 90.0)]
    scenes.append((3, "Street", 40.0, 70.0))
    lines = [(0, "direction", None, long_direction), (1, "direction", None, "Unplaced.")]
    frame = build_leaves(timeline([(1, 2, "hi")], scenes, lines), runtime_s=100.0).frame
    assert spans(frame) == [(0, 40), (40, 70), (70, 90)]
    assert [s.split(":")[0] for s in frame["summary"]] == ["Bank", "Street", "Roof"]
    bank = frame.iloc[0]["summary"]
    assert f"w{DIRECTION_WORDS - 1} …" in bank and f"w{DIRECTION_WORDS}" not in bank
    assert not frame["summary"].str.contains("Unplaced").any()


def test_the_runtime_caps_the_last_scene():
    scenes = [(0, "Dock", 0.0, 50.0), (1, "Hall", 50.0, 500.0)]
    frame = build_leaves(timeline([(10, 12, "a")], scenes), runtime_s=120.0).frame
    assert spans(frame) == [(0, 50), (50, 120)]
    # a scene starting after the runtime is not in the film
    late = scenes + [(2, "Yard", 130.0, 140.0)]
    assert len(build_leaves(timeline([(10, 12, "a")], late), runtime_s=120.0).frame) == 2


def test_a_film_without_timed_scenes_gets_subtitle_clips():
    # a pause of more than 5 s starts a new clip; untimed scenes place nothing
    cues = [(0, 2, "a"), (3, 5, "b"), (11, 13, "c"), (16, 18, "d"), (40, 41, "e")]
    untimed = [(0, "Room", None, None)]
    leaves = build_leaves(timeline(cues, untimed), runtime_s=None)
    assert leaves.backend == "subtitle-clip"
    assert spans(leaves.frame) == [(0, 5), (11, 18), (40, 41)]
    assert leaves.frame["summary"].tolist() == ["Dialogue: a b", "Dialogue: c d", "Dialogue: e"]


def test_clips_are_bounded_in_length():
    # a cue every 3 s for 5 minutes: no pause, so only the bound splits it
    starts = [3.0 * i for i in range(100)]
    groups = clip_groups(pd.Series(starts).to_numpy(), pd.Series(starts).to_numpy() + 2.0)
    assert [g[0] for g in groups] == [0, 40, 80]
    assert all(starts[g[-1]] + 2.0 - starts[g[0]] <= CLIP_MAX_S for g in groups)
    assert sum(len(g) for g in groups) == 100


def test_credit_cues_are_dropped_from_clips():
    talk = [(0, 2, "hello"), (3, 5, "bye")]
    # no runtime: a final cue after 40 s of silence that lasts an hour is the sign-off
    sign_off = timeline(talk + [(45, 3645, "subtitles by someone")])
    clips = build_leaves(sign_off).frame
    assert spans(clips) == [(0, 5)] and not clips["summary"].str.contains("someone").any()
    # ... but a last spoken line after a long silence stays (Game of Thrones S01E10's ending)
    last_line = timeline(talk + [(155, 157, "Blood of my blood.")])
    assert build_leaves(last_line).frame["end_s"].max() == 157
    # runtime known: a cue after it is dropped, a clip running past it is cut at it
    ending = [(90, 95, "nearly"), (96, 104, "over the end"), (105, 107, "after")]
    with_runtime = timeline(talk + ending)
    frame = build_leaves(with_runtime, runtime_s=100.0).frame
    assert spans(frame) == [(0, 5), (90, 100)] and frame["end_s"].max() <= 100.0
    # The Departed without its scenes: the sign-off starts inside the runtime, after a 35 s
    # silence, and runs past it
    departed = timeline(talk + [(40, 3651, "谢谢观赏！")])
    assert len(drop_credit_cues(departed["subtitles"], 1000.0)) == 2
    assert spans(build_leaves(departed, runtime_s=1000.0).frame) == [(0, 5)]


def test_fixed_windows_only_when_asked():
    cues = [(0, 2, "a"), (30, 32, "b")]
    scenes = [(0, "Dock", 0.0, 60.0)]
    windows = build_leaves(timeline(cues, scenes), runtime_s=60.0, leaf_seconds=1.0)
    assert windows.backend == "subtitle-script-window" and windows.seconds == 1.0
    assert len(windows.frame) == 60 and set(windows.frame["backend"]) == {windows.backend}
    assert leaf_backend(timeline(cues, scenes), 60.0) == "scene-window"
    assert leaf_backend(timeline(cues), 60.0) == "subtitle-clip"
    assert leaf_backend(timeline(cues), 60.0, 1.0) == "subtitle-script-window"


def test_a_film_with_nothing_timed_is_a_clear_error():
    with pytest.raises(ValueError, match="no timed scene and no subtitle cue"):
        build_leaves(timeline([], [(0, "Room", None, None)]))


def _run_params(store, run_id: str) -> dict:
    return json.loads(store.scalar("SELECT params FROM runs WHERE run_id = ?", [run_id]))


def _leaf_backends(store) -> set[str]:
    frame = store.df("SELECT summary_backend FROM current_plottree_nodes WHERE level = 0")
    return set(frame["summary_backend"])


def test_the_run_spec_and_the_leaves_name_the_leaf_backend(store, monkeypatch):
    monkeypatch.setitem(plottree_build.NODE_EMBEDDINGS, "segment-pooled", lambda: hashed_embed)
    write_fixture_film(store)
    built = build_film_tree(store, FILM)
    assert built.n_leaves == 4 and built.levels == 1  # four scenes under the root
    params = _run_params(store, built.run_id)
    assert params["leaf_backend"] == "scene-window" and params["leaf_seconds"] is None
    assert _leaf_backends(store) == {"scene-window"}
    windows = build_film_tree(store, FILM, leaf_seconds=10.0)
    assert windows.n_leaves == 60
    assert _run_params(store, windows.run_id)["leaf_backend"] == "subtitle-script-window"
    assert _leaf_backends(store) == {"subtitle-script-window"}


def test_the_executor_path_records_the_same_leaf_backend(store, monkeypatch):
    monkeypatch.setitem(plottree_build.NODE_EMBEDDINGS, "segment-pooled", lambda: hashed_embed)
    write_fixture_film(store)
    executor = make_executor("local")
    try:
        built, batch = build_trees(store, [FILM], executor)
    finally:
        executor.close()
    assert batch.complete and built[0].n_leaves == 4
    assert _run_params(store, built[0].run_id)["leaf_backend"] == "scene-window"
    assert _leaf_backends(store) == {"scene-window"}
