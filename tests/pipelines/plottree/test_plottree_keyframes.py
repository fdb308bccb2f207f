"""Keyframe indices from a registered video (OpenCV), on a tiny video written in the test."""

from __future__ import annotations

import numpy as np
import pytest

from pipelines.plottree.build import nodes_frame
from pipelines.plottree.condense import Node
from pipelines.plottree.keyframes import keyframe_indices


def write_video(path, seconds: int = 4, fps: int = 10):
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (32, 24))
    for k in range(seconds * fps):
        writer.write(np.full((24, 32, 3), k % 255, dtype=np.uint8))
    writer.release()


def test_keyframes_at_one_fps(tmp_path):
    video = tmp_path / "clip.avi"
    write_video(video)
    assert keyframe_indices(video, [0.0, 1.0, 2.5, 3.9, 10.0]) == [0, 10, 25, 39, None]
    bogus = tmp_path / "not-a-video.avi"
    bogus.write_text("hello")
    with pytest.raises(ValueError, match="cannot open"):
        keyframe_indices(bogus, [0.0])


def test_nodes_record_their_leaves_keyframes():
    leaves = [Node(f"f:L0-{i}", 0, i, i, i + 1, [i], "s", "b", []) for i in range(3)]
    parent = Node("f:L1-0", 1, 0, 0, 3, [0, 1, 2], "s", "b", [], [n.node_id for n in leaves])
    frame = nodes_frame("f", leaves + [parent], keyframes=[0, 10, None])
    assert frame["keyframes"].tolist() == [[0], [10], [], [0, 10]]
    assert nodes_frame("f", leaves)["keyframes"].isna().all()
