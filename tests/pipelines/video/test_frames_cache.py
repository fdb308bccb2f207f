"""Evidence frames: a short video with numbered frames (built here with opencv) is cached frame
by frame on disk, and the Questions and Verdicts pages show the frame at each evidence time
without waiting for the decoder."""

from __future__ import annotations

import time

import pytest

from pipelines.frames import cached_frames, extract_to_cache
from tests.support.app_fixture_data import FILM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.numbered_video import numbered_video
from tests.support.paths import REPO_ROOT


def _frame_number(jpeg) -> int:
    import cv2

    return round(float(cv2.imread(str(jpeg)).mean()) / 4)


def test_the_cached_frame_is_the_one_on_screen_at_that_time(tmp_path):
    video = numbered_video(tmp_path / "numbers.avi")
    cache = tmp_path / "cache"
    times = [0.0, 1.05, 2.35, 4.99, 30.0]
    assert cached_frames(video, times, 32, cache) == [None] * 5
    paths = extract_to_cache(video, times, width=32, cache_dir=cache)
    assert [_frame_number(p) for p in paths[:4]] == [0, 10, 23, 49]
    assert paths[4] is None  # past the end
    again = cached_frames(video, times, 32, cache)
    assert again[:4] == paths[:4] and again[4] is False  # remembered, not decoded again


def test_replacing_the_video_invalidates_its_frames(tmp_path):
    video = numbered_video(tmp_path / "v.avi")
    cache = tmp_path / "cache"
    [first] = extract_to_cache(video, [1.0], 32, cache)
    time.sleep(0.01)
    numbered_video(tmp_path / "v.avi", seconds=3)
    assert cached_frames(video, [1.0], 32, cache) == [None]
    assert first.is_file()


@pytest.fixture
def store_with_video(store, tmp_path, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frames"))
    build_app_fixture(store)
    video = numbered_video(tmp_path / "film.avi")
    with store.transaction() as cursor:
        cursor.execute("UPDATE films SET video_path = ? WHERE film_id = ?", [video, FILM])
        # q1's evidence at 2.5 s (claims 1, 2) and 4.1 s (anchor, claim 3)
        cursor.execute("UPDATE question_evidence SET time_s = 2.5 WHERE question_id='q1' AND ord=1")
        cursor.execute("UPDATE question_evidence SET time_s = 4.1 WHERE question_id='q1' AND ord=2")
    return video


def _images_after_polling(page: str, params: dict, expected: int, timeout: float = 30):
    """Run the page until its frame strip shows `expected` images (the first run only queues
    the extraction and returns)."""
    deadline = time.monotonic() + timeout
    while True:
        at = run_page(REPO_ROOT, page, params)
        assert not at.exception
        images = [e for e in _walk(at.main) if e.type == "image"]
        if len(images) >= expected or time.monotonic() > deadline:
            return at, images
        time.sleep(0.3)


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def test_questions_page_shows_the_frame_at_each_evidence_time(store_with_video, tmp_path):
    at, images = _images_after_polling("questions_page", {"q": "q1"}, expected=2)
    assert len(images) == 2
    captions = [c for i in images for c in i.proto.imgs[0].caption.splitlines()]
    assert captions[0].startswith("0:02") and captions[1].startswith("0:04")
    cached = cached_frames(store_with_video, [2.5, 4.1])
    assert [_frame_number(p) for p in cached] == [25, 41]


def test_verdicts_page_shows_evidence_frames(store_with_video):
    _, images = _images_after_polling(
        "verdicts_page", {"q": "q1", "view": "Claims × settings"}, expected=2
    )
    assert len(images) == 2


def test_no_video_says_so(store):
    build_app_fixture(store)
    at = run_page(REPO_ROOT, "film_page", {"film": FILM, "scene": "0"})
    at.session_state["reader_tab"] = "Frames"  # the reader draws its open tab only
    at.run()
    assert not at.exception
    assert any("No video registered" in c.value for c in at.caption)
