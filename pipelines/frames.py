"""Frames at given times from a registered video file (opencv), cached on disk as JPEGs.

Pages show the frame at each evidence time (Questions, Verdicts) and a strip of scene
keyframes (Film). Decoding a frame of a feature film takes tens of milliseconds to seconds
(seeking to the keyframe before it), so frames are extracted once into a cache directory and
read back from there; the pages ask for missing frames off the script thread
(`pages.frames`) and never wait for them.

The cache key of a video is its resolved path, size and modification time, so replacing the
file invalidates its frames. The cache lives in STORYSCOPE_FRAME_CACHE, default
`data/frame-cache/` of the project (next to the demo store, ignored by git).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

THUMB_WIDTH = 320
_PROJECT_DATA = Path(__file__).resolve().parent.parent / "data"
_NO_FRAME = ".none"  # marker: the video has no frame at that time (past its end)


def frame_cache_dir() -> Path:
    """Where frames are cached: STORYSCOPE_FRAME_CACHE, else the project's data/frame-cache."""
    configured = os.environ.get("STORYSCOPE_FRAME_CACHE")
    return Path(configured) if configured else _PROJECT_DATA / "frame-cache"


def _frame_index(time_s: float, fps: float) -> int:
    # the frame on screen at time t is the one whose interval [i/fps, (i+1)/fps) holds t
    return int(np.floor(float(time_s) * fps + 1e-6))


def read_thumbnails(
    video_path: str, times_s: list[float], width: int = THUMB_WIDTH
) -> list[np.ndarray | None]:
    """One RGB frame per time (None where the video has no frame there), scaled to `width`.

    Args:
        video_path: a file opencv can read.
        times_s: seconds from the start of the video.
        width: thumbnail width in pixels (height keeps the aspect ratio).
    """
    import cv2

    capture = cv2.VideoCapture(video_path)
    frames: list[np.ndarray | None] = []
    try:
        fps = capture.get(cv2.CAP_PROP_FPS) or 0.0
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        for time_s in times_s:
            if fps > 0:
                index = _frame_index(time_s, fps)
                if time_s < 0 or (count and index >= count):
                    frames.append(None)
                    continue
                capture.set(cv2.CAP_PROP_POS_FRAMES, index)
            else:  # streams without a frame rate: seek by time
                capture.set(cv2.CAP_PROP_POS_MSEC, float(time_s) * 1000.0)
            ok, frame = capture.read()
            if not ok:
                frames.append(None)
                continue
            height = max(1, int(frame.shape[0] * width / frame.shape[1]))
            frames.append(cv2.cvtColor(cv2.resize(frame, (width, height)), cv2.COLOR_BGR2RGB))
    finally:
        capture.release()
    return frames


def video_key(video_path: str | Path) -> str:
    """A short key for a video file's current content (path, size, modification time)."""
    path = Path(video_path).resolve()
    stat = path.stat()
    raw = f"{path}|{stat.st_size}|{stat.st_mtime_ns}".encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def cached_frame_path(
    video_path: str | Path, time_s: float, width: int = THUMB_WIDTH, cache_dir: Path | None = None
) -> Path:
    """Where the frame of `video_path` at `time_s` is (or will be) cached."""
    root = cache_dir or frame_cache_dir()
    millis = int(round(float(time_s) * 1000))
    return root / video_key(video_path) / f"{millis:010d}_w{width}.jpg"


def cached_frames(
    video_path: str | Path,
    times_s: list[float],
    width: int = THUMB_WIDTH,
    cache_dir: Path | None = None,
) -> list[Path | None | bool]:
    """Per time: the cached JPEG's path, False when the video has no frame there, or None when
    the frame is not extracted yet."""
    out: list[Path | None | bool] = []
    for time_s in times_s:
        path = cached_frame_path(video_path, time_s, width, cache_dir)
        if path.is_file():
            out.append(path)
        elif path.with_suffix(_NO_FRAME).exists():
            out.append(False)
        else:
            out.append(None)
    return out


def extract_to_cache(
    video_path: str | Path,
    times_s: list[float],
    width: int = THUMB_WIDTH,
    cache_dir: Path | None = None,
) -> list[Path | None]:
    """Decode the frames not cached yet and write them as JPEGs (atomically: a reader never
    sees half a file); returns each time's cached path, None where the video has no frame."""
    import cv2

    paths = [cached_frame_path(video_path, t, width, cache_dir) for t in times_s]
    todo = [
        (t, p)
        for t, p in zip(times_s, paths)
        if not p.is_file() and not p.with_suffix(_NO_FRAME).exists()
    ]
    if todo:
        paths[0].parent.mkdir(parents=True, exist_ok=True)
        frames = read_thumbnails(str(video_path), [t for t, _ in todo], width)
        for (_, path), frame in zip(todo, frames):
            if frame is None:
                path.with_suffix(_NO_FRAME).touch()
                continue
            partial = path.with_name(path.name + f".{os.getpid()}.tmp.jpg")
            cv2.imwrite(str(partial), cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
            os.replace(partial, path)
    return [p if p.is_file() else None for p in paths]
