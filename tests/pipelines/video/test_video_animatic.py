"""The sample film's animatic (`pipelines.video.animatic`, demo step 47): one card per scene,
timed by the subtitles, deterministic, small, written beside the store (not in the repo) and
registered as the film's video; a rerun keeps it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from data_access.queries.video import film_video, scene_spans, timed_speakers
from pipelines.demo import step_47_sample_animatic as step
from pipelines.frames import read_frames
from pipelines.video.animatic import FPS, SIZE, _load, _state_at, render_animatic
from tests.support.video_fixtures import ingest_sample_film


@pytest.fixture
def sample_film(store):
    return ingest_sample_film(store)


def test_each_frame_shows_the_scene_and_the_cue_on_screen_at_its_time(store, sample_film):
    film = _load(store, sample_film)
    spans, cues = scene_spans(store, sample_film), timed_speakers(store, sample_film)
    assert len(spans) == 19 and len(cues) > 100
    for row, cue in cues.iloc[::9].iterrows():
        middle = (cue.start_s + cue.end_s) / 2
        scene, spoken = _state_at(film, middle)
        assert spoken == row
        assert spans.iloc[scene].start_s <= middle
        assert scene == len(spans) - 1 or spans.iloc[scene + 1].start_s > middle
    first = spans.iloc[0].start_s
    assert _state_at(film, first - 0.5) == (None, None)  # the title card


def test_the_demo_step_renders_registers_and_keeps_a_small_deterministic_video(
    store, sample_film, tmp_path
):
    messages: list[str] = []
    step.run(store, None, messages.append)
    registered = film_video(store, sample_film)
    path = Path(registered["video_path"])
    assert path.parent == Path(store.path).parent / "videos" and path.is_file()
    assert registered["fps"] == FPS
    assert path.stat().st_size < 3 * 2**20  # small: 320x180 at 2 fps
    again = render_animatic(store, sample_film, tmp_path / "again.mp4")
    assert again.path.read_bytes() == path.read_bytes()  # deterministic, byte for byte
    # cards change with the scenes and the lines, not between two frames of one silence
    spans = scene_spans(store, sample_film)
    cues = timed_speakers(store, sample_film)
    silent = next(
        (a.end_s, b.start_s) for (_, a), (_, b) in zip(cues.iterrows(), cues.iloc[1:].iterrows())
        if b.start_s - a.end_s > 2.5 and _same_scene(spans, a.end_s + 0.6, b.start_s - 0.6)
    )  # fmt: skip
    times = [silent[0] + 0.6, silent[1] - 0.6, cues.iloc[5].start_s + 0.6]
    frames = read_frames(str(path), times, SIZE[0], -1)
    text = [f[: SIZE[1] - 20] for f in frames]  # without the clock in the corner
    assert np.abs(text[0].astype(int) - text[1]).max() < 40  # same card (compression noise)
    assert np.abs(text[0].astype(int) - text[2]).mean() > 1  # another line on screen
    messages.clear()
    step.run(store, None, messages.append)
    assert "already registered, skipped" in messages[0]


def _same_scene(spans, a: float, b: float) -> bool:
    starts = spans["start_s"].to_numpy()
    return np.searchsorted(starts, a, "right") == np.searchsorted(starts, b, "right")


def test_a_film_without_timed_scenes_is_refused(store):
    with pytest.raises(ValueError, match="no film 'nope'"):
        render_animatic(store, "nope")
