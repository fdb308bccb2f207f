"""Frames at scene times when a video is registered for the film (opencv, cached thumbnails)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pipelines.frames import read_thumbnails


@st.cache_data(show_spinner=False, max_entries=64)
def _thumbnails(video_path: str, times: tuple[float, ...]) -> list:
    return read_thumbnails(video_path, list(times))


def scene_frames(
    video_path: str | None, start_s: float | None, end_s: float | None, count: int = 3
) -> None:
    """Show `count` frames spread over a scene, or say why there are none."""
    if not video_path:
        st.caption(
            "No video registered for this film (set `video_path` on the film to see frames)."
        )
        return
    if not Path(video_path).is_file():
        st.warning(f"Video file not found: {video_path}")
        return
    if start_s is None or end_s is None or start_s != start_s:
        st.caption("This scene has no times, so no frames can be taken.")
        return
    step = (end_s - start_s) / (count + 1)
    times = tuple(round(start_s + step * (i + 1), 2) for i in range(count))
    frames = _thumbnails(video_path, times)
    columns = st.columns(count)
    for column, time_s, frame in zip(columns, times, frames):
        if frame is None:
            column.caption(f"no frame at {time_s:.0f}s")
        else:
            column.image(frame, caption=f"{time_s:.0f}s", channels="RGB")
