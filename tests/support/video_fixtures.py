"""Videos for the frame and caption tests (and benchmarks/bench_frames.py): frames stamped
with their index in black/white blocks (readable back after lossy compression), written with
opencv (mp4v) or, in H.264 (the codec of a user's films), with PyAV's libx264 (opencv's wheels
cannot encode H.264: `cv2.VideoWriter_fourcc(*'avc1')` does not open here); and the sample
film ingested into a store."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

BITS = 18  # up to 262,144 frames
SAMPLE_FILM_ID = "the-keepers-ledger"


def stamped_frame(index: int, width: int, height: int) -> np.ndarray:
    """A BGR frame whose top half spells `index` in binary as BITS black/white blocks."""
    frame = np.full((height, width, 3), 96, np.uint8)
    block = width // BITS
    for bit in range(BITS):
        frame[: height // 2, bit * block : (bit + 1) * block] = 255 if index >> bit & 1 else 0
    return frame


def stamp_of(frame: np.ndarray) -> int:
    """The index stamped on a frame (BGR or RGB, at the width it was written at)."""
    height, width = frame.shape[:2]
    block = width // BITS
    row = frame[: max(1, height // 4)].mean(axis=(0, 2))
    # each block's centre column: codecs blur the edges between blocks
    return sum(1 << bit for bit in range(BITS) if row[bit * block + block // 2] > 128)


def mp4v_video(path: Path, seconds: float, fps: float, size=(144, 80)) -> Path:
    """A stamped video in mp4v (what opencv writes everywhere)."""
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    for index in range(int(seconds * fps)):
        writer.write(stamped_frame(index, *size))
    writer.release()
    return path


def h264_video(path: Path, seconds: float, fps: float, size=(144, 80)) -> Path:
    """A stamped video in H.264 (libx264's defaults: B-frames, keyframes up to 250 frames
    apart) in an .mp4, written with PyAV."""
    import av

    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1000))
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        for index in range(int(seconds * fps)):
            picture = av.VideoFrame.from_ndarray(stamped_frame(index, *size), format="bgr24")
            container.mux(stream.encode(picture))
        container.mux(stream.encode())
    return path


def ingest_sample_film(store) -> str:
    """The Keeper's Ledger ingested as `storyscope demo` does (step 30); its film id."""
    from pipelines.demo.step_30_sample_film import run

    run(store, None, lambda _: None)
    return SAMPLE_FILM_ID
