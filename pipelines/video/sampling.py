"""Frames of a film sampled at a fixed rate, as cached JPEG files (LF-VideoQA §4.2: "uniformly
sampled visual input (at 0.2fps)").

    from pipelines.video.sampling import sample_frames
    frames = sample_frames(store, "the-keepers-ledger", fps=0.2, start_s=60, end_s=120)
    # [SampledFrame(time_s=62.5, jpeg_path=Path(...)), SampledFrame(time_s=67.5, ...), ...]

The times are one global grid, the middle of each 1/fps interval from the film's start:
t_k = (k + 1/2) / fps, for every t_k in [start_s, end_s) within the video. The paper says
"uniformly sampled" and no more; the middle of the interval keeps the first frame off the
opening black and makes the frames of any window the film's own frames at those times, so a
window's frames are cached once and shared by every setting and caption chunk that covers it.

Frames are decoded by `pipelines.frames` (one pass or a seek per frame by the gap between them,
`SEEK_GAP_FRAMES`) and cached on disk by (video key, time, width): see `pipelines.frames`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from data_access.queries.video import film_video
from data_access.store import Store
from pipelines.frames import VideoError, extract_to_cache, probe_video

DEFAULT_FPS = 0.2  # LF-VideoQA §4.2
FRAME_WIDTH = 448  # pixels; the height keeps the aspect ratio


class NoVideo(ValueError):
    """The film is unknown, has no registered video, or its file cannot be read."""


@dataclass(frozen=True)
class SampledFrame:
    """One sampled frame: its time in the film and its cached JPEG file."""

    time_s: float
    jpeg_path: Path

    def jpeg_bytes(self) -> bytes:
        return self.jpeg_path.read_bytes()


@dataclass(frozen=True)
class FilmVideo:
    """A film's registered video file, its frame rate and length."""

    film_id: str
    path: Path
    fps: float
    duration_s: float


def film_video_file(store: Store, film_id: str) -> FilmVideo:
    """The film's registered video, checked readable.

    Raises:
        NoVideo: no such film, no video registered, or the file is missing or unreadable.
    """
    return checked_video(film_id, film_video(store, film_id))


def checked_video(film_id: str, row: dict | None) -> FilmVideo:
    """`film_video_file` of a film row already read ({video_path, ...}, None: no such film).

    Raises:
        NoVideo: see `film_video_file`.
    """
    if row is None:
        raise NoVideo(f"no film {film_id!r} in the store")
    if not isinstance(row["video_path"], str) or not row["video_path"]:
        raise NoVideo(
            f"film {film_id!r} has no registered video (register one: storyscope film video "
            f"{film_id} FILE)"
        )
    path = Path(row["video_path"])
    if not path.is_file():
        raise NoVideo(f"film {film_id!r}: its video {path} is missing")
    try:
        fps, duration = probe_video(path)
    except VideoError as exc:
        raise NoVideo(f"film {film_id!r}: {exc}") from None
    if duration is None:
        raise NoVideo(f"film {film_id!r}: {path} reports no frame count (its length is unknown)")
    return FilmVideo(film_id, path, fps, duration)


def sample_times(
    duration_s: float, fps: float, start_s: float | None = None, end_s: float | None = None
) -> list[float]:
    """The grid times (k + 1/2) / fps inside [start_s, end_s) and inside the video."""
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    start = max(0.0, start_s or 0.0)
    end = min(duration_s, duration_s if end_s is None else end_s)
    first = max(0, math.ceil(start * fps - 0.5))
    times = []
    k = first
    while (time_s := (k + 0.5) / fps) < end:
        if time_s >= start:
            times.append(round(time_s, 6))
        k += 1
    return times


def sample_frames(
    store: Store,
    film_id: str,
    fps: float = DEFAULT_FPS,
    start_s: float | None = None,
    end_s: float | None = None,
    width: int = FRAME_WIDTH,
    cache_dir: Path | None = None,
) -> list[SampledFrame]:
    """The film's frames at `fps` within [start_s, end_s) (default: the whole video), in time
    order, as cached JPEGs (extracted now where not cached). A time past the last decodable
    frame is left out.

    Raises:
        NoVideo: see `film_video_file`.
        ValueError: fps not positive.
    """
    video = film_video_file(store, film_id)
    return sample_video_frames(video, fps, start_s, end_s, width, cache_dir)


def sample_video_frames(
    video: FilmVideo,
    fps: float = DEFAULT_FPS,
    start_s: float | None = None,
    end_s: float | None = None,
    width: int = FRAME_WIDTH,
    cache_dir: Path | None = None,
) -> list[SampledFrame]:
    """`sample_frames` of a video already looked up (no store needed: the agent tools of an
    exported task sample from the film index they were given)."""
    times = sample_times(video.duration_s, fps, start_s, end_s)
    paths = extract_to_cache(video.path, times, width, cache_dir)
    return [SampledFrame(t, p) for t, p in zip(times, paths) if p is not None]
