"""Frames at given times from a registered video file (opencv), cached on disk as JPEGs.

Pages show the frame at each evidence time (Questions, Verdicts) and a strip of scene
keyframes (Film). Decoding a frame of a feature film takes tens of milliseconds to seconds
(seeking to the keyframe before it), so frames are extracted once into a cache directory and
read back from there; the pages ask for missing frames off the script thread
(`ui.frames`) and never wait for them.

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
# JPEG quality of cached frames: 85 halves the bytes of opencv's default 95 with no visible
# loss at these sizes; the frames also travel inline to vision models (captions, video
# settings), where every byte is sent and kept with the gateway's cache entry.
JPEG_QUALITY = 85
_PROJECT_DATA = Path(__file__).resolve().parent.parent / "data"
_NO_FRAME = ".none"  # marker: the video has no frame at that time (past its end)


def frame_cache_dir() -> Path:
    """Where frames are cached: STORYSCOPE_FRAME_CACHE, else the project's data/frame-cache."""
    configured = os.environ.get("STORYSCOPE_FRAME_CACHE")
    return Path(configured) if configured else _PROJECT_DATA / "frame-cache"


def _frame_index(time_s: float, fps: float) -> int:
    # the frame on screen at time t is the one whose interval [i/fps, (i+1)/fps) holds t
    return int(np.floor(float(time_s) * fps + 1e-6))


# Decoding: wanted frames further apart than this many frames are reached by a seek, nearer
# ones by decoding forward (grab) in one pass. A seek lands on the keyframe before its target
# and decodes forward from there, so it pays off only past a gap of about the keyframe
# spacing. benchmarks/bench_frames.py sweeps the gap (figures in docs/VIDEO.md): seek and pass
# cross at about 120 frames for H.264 with libx264's keyframe spacing (what a user's films
# are; 0.62x at a 120-frame gap over 15 min) and at about 30 for opencv's mp4v (a keyframe
# every 12 frames). Set for H.264: 0.2 fps of a 24-30 fps film (gaps of 120-150 frames)
# seeks; 0.5 fps (caption frames, gaps of 48-60) and denser decode in one pass, as does any
# video of a few frames per second (the animatic: a gap of 4-10).
SEEK_GAP_FRAMES = 100


class VideoError(ValueError):
    """The video file cannot be opened."""


def probe_video(path: Path) -> tuple[float, float | None]:
    """(frames per second, duration in seconds) read with OpenCV.

    Raises:
        VideoError: opencv cannot open the file, or it reports no frame rate."""
    import cv2

    capture = cv2.VideoCapture(str(path))
    try:
        if not capture.isOpened():
            raise VideoError(f"{path}: OpenCV cannot open this video")
        fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
        frames = float(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0.0)
    finally:
        capture.release()
    if fps <= 0:
        raise VideoError(f"{path}: the video reports no frame rate")
    return fps, (frames / fps if frames > 0 else None)


def read_frames(
    video_path: str,
    times_s: list[float],
    width: int = THUMB_WIDTH,
    seek_gap: int | None = None,
) -> list[np.ndarray | None]:
    """One RGB frame per time (None where the video has no frame there), scaled to `width`.

    The frames are decoded in time order: a wanted frame within `seek_gap` frames after the
    last one decoded is reached by decoding forward (one sequential pass), a farther one by a
    seek. A negative `seek_gap` seeks for every frame; a huge one never seeks (one pass from
    the start).

    Args:
        video_path: a file opencv can read.
        times_s: seconds from the start of the video (any order).
        width: frame width in pixels (height keeps the aspect ratio).
        seek_gap: frames; default SEEK_GAP_FRAMES.
    """
    import cv2

    gap = SEEK_GAP_FRAMES if seek_gap is None else seek_gap
    capture = cv2.VideoCapture(video_path)
    try:
        fps = capture.get(cv2.CAP_PROP_FPS) or 0.0
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if fps > 0:
            decoded = _decode_indices(capture, _wanted_indices(times_s, fps, count), gap)
            frames = [decoded.get(_frame_index(t, fps)) if t >= 0 else None for t in times_s]
        else:  # streams without a frame rate: seek by time
            frames = [_read_at_msec(capture, t) for t in times_s]
    finally:
        capture.release()
    return [None if frame is None else _scaled_rgb(frame, width) for frame in frames]


def read_thumbnails(
    video_path: str, times_s: list[float], width: int = THUMB_WIDTH
) -> list[np.ndarray | None]:
    """`read_frames` with the default decoding rule (the pages' few evidence frames)."""
    return read_frames(video_path, times_s, width)


def _wanted_indices(times_s: list[float], fps: float, count: int) -> list[int]:
    indices = {_frame_index(t, fps) for t in times_s if t >= 0}
    return sorted(i for i in indices if not count or i < count)


def _decode_indices(capture, indices: list[int], seek_gap: int) -> dict[int, np.ndarray]:
    """BGR frames at the sorted frame `indices`, decoding forward across gaps up to
    `seek_gap` frames and seeking across wider ones."""
    import cv2

    frames: dict[int, np.ndarray] = {}
    position = 0  # index of the frame the next read() returns
    for index in indices:
        if seek_gap < 0 or index < position or index - position > seek_gap:
            capture.set(cv2.CAP_PROP_POS_FRAMES, index)
            position = index
        while position < index:  # grab decodes without converting the picture: cheap skip
            if not capture.grab():
                return frames
            position += 1
        ok, frame = capture.read()
        position += 1
        if not ok:
            return frames
        frames[index] = frame
    return frames


def _read_at_msec(capture, time_s: float) -> np.ndarray | None:
    import cv2

    if time_s < 0:
        return None
    capture.set(cv2.CAP_PROP_POS_MSEC, float(time_s) * 1000.0)
    ok, frame = capture.read()
    return frame if ok else None


def _scaled_rgb(frame: np.ndarray, width: int) -> np.ndarray:
    import cv2

    height = max(1, int(frame.shape[0] * width / frame.shape[1]))
    return cv2.cvtColor(cv2.resize(frame, (width, height)), cv2.COLOR_BGR2RGB)


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
    seek_gap: int | None = None,
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
        frames = read_frames(str(video_path), [t for t, _ in todo], width, seek_gap)
        for (_, path), frame in zip(todo, frames):
            if frame is None:
                path.with_suffix(_NO_FRAME).touch()
                continue
            partial = path.with_name(path.name + f".{os.getpid()}.tmp.jpg")
            bgr = cv2.cvtColor(frame, cv2.COLOR_RGB2BGR)
            cv2.imwrite(str(partial), bgr, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            os.replace(partial, path)
    return [p if p.is_file() else None for p in paths]
