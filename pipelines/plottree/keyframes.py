"""Keyframes for PlotTree leaves when a video is registered (StoryVideoQA §5.1, §6.1: 1 fps).

With `films.video_path` set, each leaf records the index of the video frame at its start
(round(start_s · fps): a scene or clip leaf's first frame, a 1-fps window's own frame), read and
checked with OpenCV: a frame the decoder cannot grab is not recorded. Captioning the frames
(LLaVA in the paper) is not done offline; the text leaves stay the summaries, and the indices
let the page or a later captioner find the frames.
"""

from __future__ import annotations

from pathlib import Path


def keyframe_indices(video_path: str | Path, starts_s: list[float]) -> list[int | None]:
    """The frame index at each start time, or None past the end / where decoding fails.

    Raises:
        ValueError: the file cannot be opened as a video.
    """
    import cv2

    capture = cv2.VideoCapture(str(video_path))
    if not capture.isOpened():
        raise ValueError(f"{video_path}: cannot open the registered video")
    try:
        fps = capture.get(cv2.CAP_PROP_FPS) or 0.0
        frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if fps <= 0 or frames <= 0:
            raise ValueError(f"{video_path}: no frame rate or frame count")
        out: list[int | None] = []
        for start in starts_s:
            index = int(round(start * fps))
            if index >= frames:
                out.append(None)
                continue
            capture.set(cv2.CAP_PROP_POS_FRAMES, index)
            out.append(index if capture.grab() else None)
        return out
    finally:
        capture.release()
