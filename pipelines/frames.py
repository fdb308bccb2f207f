"""Thumbnails at given times from a registered video file (opencv), for the Film page."""

from __future__ import annotations

import numpy as np


def read_thumbnails(
    video_path: str, times_s: list[float], width: int = 320
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
        for time_s in times_s:
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
