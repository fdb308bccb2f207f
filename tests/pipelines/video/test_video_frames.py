"""Frames sampled from a film's registered video (`pipelines.frames`, `pipelines.video.sampling`,
`storyscope film frames`): one sequential pass, a seek per frame and the default rule give the
same, right frames; the 0.2-fps grid of a window; a real H.264 file (the codec of a user's
films, written here with PyAV since opencv's wheels cannot encode it) read through the store;
frames cached by (video, time, width) and not decoded again; clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from data_access.tables.films import set_film_video
from pipelines.frames import read_frames
from pipelines.video.sampling import NoVideo, sample_frames, sample_times
from tests.support.video_fixtures import (
    h264_video,
    ingest_sample_film,
    mp4v_video,
    stamp_of,
)

WIDTH = 144


def _stamps(frames) -> list[int | None]:
    return [None if f is None else stamp_of(f) for f in frames]


@pytest.mark.parametrize("writer", [mp4v_video, h264_video], ids=["mp4v", "h264"])
def test_one_pass_and_a_seek_per_frame_give_the_frame_on_screen_at_each_time(tmp_path, writer):
    if writer is h264_video:
        pytest.importorskip("av", reason="PyAV is installed by the test extra")
    video = str(writer(tmp_path / "film.mp4", seconds=120, fps=12))
    times = [0.0, 0.04, 2.5, 7.5, 7.49, 30.01, 95.0, 119.95, 120.5, -1.0]
    # frame i is on screen over [i/12, (i+1)/12)
    expected = [0, 0, 30, 90, 89, 360, 1140, 1439, None, None]
    for gap in (-1, 10**9, None, 40):  # seek each, one pass, the default rule, a mix
        assert _stamps(read_frames(video, times, WIDTH, gap)) == expected, gap


def test_the_grid_is_the_middle_of_each_interval_within_the_window_and_the_video():
    assert sample_times(30, 0.2) == [2.5, 7.5, 12.5, 17.5, 22.5, 27.5]
    assert sample_times(30, 0.2, start_s=5, end_s=17.5) == [7.5, 12.5]
    assert sample_times(30, 0.2, start_s=7.5, end_s=12.5) == [7.5]  # [start, end)
    assert sample_times(29, 0.2, start_s=20) == [22.5, 27.5]
    assert sample_times(30, 0.2, start_s=40) == []
    with pytest.raises(ValueError, match="positive"):
        sample_times(30, 0)


@pytest.fixture
def h264_film(store, tmp_path, monkeypatch):
    pytest.importorskip("av", reason="PyAV is installed by the test extra")
    monkeypatch.setenv("STORYSCOPE_FRAME_CACHE", str(tmp_path / "frame-cache"))
    film = ingest_sample_film(store)
    video = h264_video(tmp_path / "ledger.mp4", seconds=60, fps=24)
    set_film_video(store, film, str(video), 24.0)
    return film


def test_sample_frames_of_a_real_h264_file_are_cached_and_not_decoded_again(
    store, h264_film, monkeypatch
):
    import cv2

    frames = sample_frames(store, h264_film, fps=0.2, start_s=10, end_s=40, width=WIDTH)
    assert [f.time_s for f in frames] == [12.5, 17.5, 22.5, 27.5, 32.5, 37.5]
    decoded = [stamp_of(cv2.imread(str(f.jpeg_path))) for f in frames]
    assert decoded == [int(np.floor(f.time_s * 24)) for f in frames]
    assert all(f.jpeg_bytes()[:2] == b"\xff\xd8" for f in frames)  # JPEG files

    def no_decoding(*args, **kwargs):
        raise AssertionError("a cached frame was decoded again")

    monkeypatch.setattr("pipelines.frames.read_frames", no_decoding)
    again = sample_frames(store, h264_film, fps=0.2, start_s=10, end_s=40, width=WIDTH)
    assert again == frames
    with pytest.raises(AssertionError, match="decoded again"):  # another width is another key
        sample_frames(store, h264_film, fps=0.2, start_s=10, end_s=40, width=WIDTH // 2)


def test_a_film_without_a_readable_video_is_refused_by_name(store, tmp_path):
    film = ingest_sample_film(store)
    with pytest.raises(NoVideo, match="has no registered video.*storyscope film video"):
        sample_frames(store, film)
    with pytest.raises(NoVideo, match="no film 'nope'"):
        sample_frames(store, "nope")
    set_film_video(store, film, str(tmp_path / "gone.mp4"), 24.0)
    with pytest.raises(NoVideo, match="gone.mp4 is missing"):
        sample_frames(store, film)


def test_film_frames_command_extracts_the_grid_into_the_cache(store_path, store, h264_film):
    from pipelines.cli import app, load_commands

    load_commands()
    runner = CliRunner()
    args = ["film", "frames", "--film", h264_film, "--store", str(store_path), "--json"]
    result = runner.invoke(app, [*args, "--fps", "0.2"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["frames"] == 12 and summary["first_s"] == 2.5 and summary["last_s"] == 57.5
    refused = runner.invoke(app, [*args[:3], "nope", *args[4:]])
    assert refused.exit_code != 0 and "no film 'nope'" in refused.output
