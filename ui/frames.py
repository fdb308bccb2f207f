"""Video frames on the pages when a video is registered for the film (`film ingest --video`):
a strip of frames at given times (evidence times, scene keyframes).

Frames come from the disk cache of `pipelines.frames`. Missing ones are extracted by one
background worker per app process, so a page never waits for a decoder: it draws what is
cached, says how many frames are on their way, and a fragment polls the cache each second until
they are all there.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import streamlit as st

from pipelines.frames import cached_frames, extract_to_cache
from ui.safe_text import plain

POLL_S = 1.0
MAX_FRAMES = 12  # per strip: a row of thumbnails a reader can take in


@st.cache_resource
def _extractor() -> tuple[ThreadPoolExecutor, dict]:
    # one worker: decoding is CPU-bound and the app shares its cores with every session
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="frames"), {}


def request_frames(video_path: str, times: Sequence[float]) -> Future:
    """Queue extraction of `times` (once per distinct request while it runs)."""
    pool, pending = _extractor()
    key = (video_path, tuple(times))
    future = pending.get(key)
    if future is None or future.done():
        future = pool.submit(extract_to_cache, video_path, list(times))
        pending[key] = future
    return future


def _video_problem(video_path: str | None) -> str | None:
    if not video_path or not isinstance(video_path, str):
        return "No video registered for this film (`storyscope film ingest --video FILE`)."
    if not Path(video_path).is_file():
        return f"Video file not found: {plain(video_path)}"
    return None


def _draw(video_path: str, times: tuple[float, ...], captions: tuple[str, ...]) -> int:
    """Draw the strip from the cache; return how many frames are still missing."""
    found = cached_frames(video_path, list(times))
    missing = [t for t, f in zip(times, found) if f is None]
    columns = st.columns(len(times))
    for column, caption, frame in zip(columns, captions, found):
        if frame is None:
            column.caption(f"{plain(caption)} · extracting…")
        elif frame is False:
            column.caption(f"{plain(caption)} · no frame (past the end of the video)")
        else:
            column.image(str(frame), caption=plain(caption), width="stretch")
    return len(missing)


@st.fragment(run_every=POLL_S)
def _polling_strip(video_path: str, times: tuple[float, ...], captions: tuple[str, ...]) -> None:
    error = request_frames(video_path, times).exception() if _done(video_path, times) else None
    if error is not None:
        st.warning(f"Could not read frames from {plain(video_path)}: {plain(error)}")
        return
    if _draw(video_path, times, captions) == 0:
        st.rerun()  # all there: the next run draws the strip without polling


def _done(video_path: str, times: tuple[float, ...]) -> bool:
    _, pending = _extractor()
    future = pending.get((video_path, times))
    return future is not None and future.done()


def frame_strip(
    video_path: str | None, times: Sequence[float], captions: Sequence[str] | None = None
) -> None:
    """Show the frames at `times` (seconds), captioned, or say why there are none.

    Args:
        video_path: the film's registered video (films.video_path), or None.
        times: seconds into the video; at most MAX_FRAMES are drawn.
        captions: one per time (default: the time in seconds).
    """
    problem = _video_problem(video_path)
    if problem:
        st.caption(problem)
        return
    times = tuple(round(float(t), 2) for t in list(times)[:MAX_FRAMES] if t == t)
    if not times:
        st.caption("No times to take frames at.")
        return
    captions = tuple(captions[: len(times)]) if captions else tuple(f"{t:.0f}s" for t in times)
    if all(f is not None for f in cached_frames(video_path, list(times))):
        _draw(video_path, times, captions)
        return
    request_frames(video_path, times)
    _polling_strip(video_path, times, captions)


def scene_frames(
    video_path: str | None, start_s: float | None, end_s: float | None, count: int = 3
) -> None:
    """`count` frames spread evenly over one scene."""
    if start_s is None or end_s is None or start_s != start_s or end_s != end_s:
        problem = _video_problem(video_path)
        st.caption(problem or "This scene has no times, so no frames can be taken.")
        return
    step = (end_s - start_s) / (count + 1)
    frame_strip(video_path, [start_s + step * (i + 1) for i in range(count)])
