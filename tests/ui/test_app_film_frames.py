"""Frames at scene times: opencv thumbnails from a registered video (built here, 10 s, 5 fps)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from pipelines.frames import read_thumbnails
from tests.support.app_fixture_data import FILM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT


def _video(path, seconds: int = 10, fps: int = 5) -> str:
    """A video whose frame at second t is filled with grey level 20 * t."""
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    for index in range(seconds * fps):
        writer.write(np.full((48, 64, 3), 20 * (index // fps), dtype=np.uint8))
    writer.release()
    return str(path)


def test_read_thumbnails_takes_the_frame_at_each_time(tmp_path):
    frames = read_thumbnails(_video(tmp_path / "v.avi"), [1.0, 6.0, 99.0], width=32)
    assert frames[0].shape == (24, 32, 3)
    assert abs(float(frames[0].mean()) - 20) < 6 and abs(float(frames[1].mean()) - 120) < 6
    assert frames[2] is None  # past the end of the video


@pytest.fixture
def store_with_video(store, tmp_path, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frames"))
    build_app_fixture(store)
    # scene 0 runs 0–300 s; the fixture video is 10 s long, so point the film at a 10-s runtime
    with store.transaction() as cursor:
        cursor.execute(
            "UPDATE films SET video_path = ? WHERE film_id = ?",
            [_video(tmp_path / "film.avi"), FILM],
        )
        cursor.execute(
            "UPDATE scenes SET start_s = 0, end_s = 8 WHERE film_id = ? AND scene_index = 0", [FILM]
        )
    return store


def test_film_page_shows_frames_of_the_scene_and_a_keyframe_strip(store_with_video, tmp_path):
    """Frames come from the disk cache; the first run only queues them, so poll like the page."""
    deadline = time.monotonic() + 30
    while True:
        at = run_page(REPO_ROOT, "film_page", {"film": FILM, "scene": "0"})
        at.session_state["reader_tab"] = "Frames"  # the reader draws its open tab only
        at.run()
        assert not at.exception
        images = [element for element in _walk(at.main) if element.type == "image"]
        if len(images) >= 4 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    # frames at 2, 4 and 6 s of the 0–8 s scene, and scene 0's keyframe (4 s) in the strip;
    # the other scenes start past the 10-s video's end
    assert len(images) == 4
    assert any("past the end of the video" in caption.value for caption in at.caption)
    assert not any("No video registered" in caption.value for caption in at.caption)


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)
