"""A video whose frames show their own number."""

from __future__ import annotations

import numpy as np

FPS = 10


def numbered_video(path, seconds: int = 6, fps: int = FPS) -> str:
    """A video whose frame n is filled with grey level 4·n (frame n shows from n/fps s)."""
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    for index in range(seconds * fps):
        writer.write(np.full((48, 64, 3), 4 * index, dtype=np.uint8))
    writer.release()
    return str(path)
