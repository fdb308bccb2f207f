"""PlotTree on real aligned StoryVideoQA videos (../shared/data): leaves and tree structure.

The aligned script is read with the StoryVideoQA importer's own reader and written to a temp
store; the embedder is the model-free hashed one so the test stays fast (MiniLM trees for real
videos are built by demo step 55 and `storyscope plottree build`). One-second windows (the
paper's 1 fps, on request) and the default scene leaves are both checked.
"""

from __future__ import annotations

import pytest

from data_access.tables.plottree_records import film_timeline
from pipelines.plottree.build import build_nodes
from pipelines.plottree.leaf_units import drop_credit_cues, scene_windows
from pipelines.plottree.leaves import build_leaves, film_span
from tests.support.plottree_film import hashed_embed
from tests.support.real_videos import load_video

pytestmark = pytest.mark.realdata


@pytest.mark.parametrize(
    "series, vid", [("Friends", "Friends-S01E01"), ("Movie", "IMDB-114-Chinatown")]
)
def test_real_video_tree(store, shared_data, series, vid):
    runtime = load_video(store, shared_data, series, vid)
    leaves = build_leaves(film_timeline(store, vid), runtime, leaf_seconds=1.0).frame
    # 1 fps while the story runs: to the last scene's end (the credits after it are dropped)
    span = film_span(film_timeline(store, vid)["subtitles"], film_timeline(store, vid)["scenes"])
    assert len(leaves) == pytest.approx(min(span, runtime), abs=1) and len(leaves) <= runtime + 1
    with_dialogue = leaves["summary"].str.contains("Dialogue:").mean()
    assert 0.2 < with_dialogue < 0.95  # speech is frequent, not constant
    assert leaves["characters"].map(len).gt(0).mean() > 0.5  # most leaves name characters
    nodes, vectors = build_nodes(leaves, f"{vid}:", embed=hashed_embed)
    levels = {}
    for node in nodes:
        levels[node.level] = levels.get(node.level, 0) + 1
    n = len(leaves)
    assert levels[1] <= n // 36 and levels[max(levels)] == 1  # K^0 = ⌊n/36⌋ at most, one root
    root = nodes[-1]
    assert root.leaf_indices == list(range(n)) and root.start_s == 0.0
    assert len(vectors) == len(nodes)


@pytest.mark.parametrize(
    "vid, n_scenes, last_end",
    [
        ("IMDB-114-Chinatown", 77, 7738.146),
        ("IMDB-004-The Dark Knight", 388, 8665.821),  # 390 scenes, two without a time
        ("IMDB-046-The Departed", 208, 8640.41),  # its credit cue runs to 3:24:47
    ],
)
def test_real_films_get_one_leaf_per_scene_and_no_credits(
    store, shared_data, vid, n_scenes, last_end
):
    runtime = load_video(store, shared_data, "Movie", vid)
    timeline = film_timeline(store, vid)
    leaves = build_leaves(timeline, runtime)
    frame = leaves.frame
    assert leaves.backend == "scene-window" and len(frame) == n_scenes
    assert frame["end_s"].max() == pytest.approx(last_end) and last_end <= runtime
    assert (frame["start_s"].diff().dropna() >= 0).all()  # in time order, tiling the film
    assert (frame["start_s"].iloc[1:].to_numpy() == frame["end_s"].iloc[:-1].to_numpy()).all()
    # every subtitle cue before the end is in exactly one leaf; the sign-off in none
    cues = drop_credit_cues(timeline["subtitles"], runtime)
    held = scene_windows(timeline["scenes"], cues.reset_index(drop=True), runtime)["cues"]
    assert sum(map(len, held)) == int((cues["start_s"] < last_end).sum())
    assert not frame["summary"].str.contains("shooter.cn").any()
    # most scenes name their cast (a scene's speakers); wordless action scenes name nobody
    assert frame["characters"].map(len).gt(0).mean() > 0.5
    nodes, _ = build_nodes(frame, f"{vid}:", embed=hashed_embed)
    assert nodes[-1].leaf_indices == list(range(len(frame)))
