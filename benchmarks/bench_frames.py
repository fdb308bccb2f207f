"""Frame extraction: one sequential pass against a seek per frame (`pipelines.frames`).

A synthetic film made here with opencv (mp4v, the codec opencv writes everywhere; `--hours`
long, `--video-fps` frames per second, `--size` pixels, each frame stamped with its index so
every method's frames are checked to be the right ones: tests/support/video_fixtures.py) is
sampled at `--fps` (0.2: the LF-VideoQA video settings, §4.2) three ways in the same run:

- `seek`: a seek (CAP_PROP_POS_FRAMES) before every wanted frame;
- `pass`: one pass from the start, decoding forward (grab) to each wanted frame;
- `auto`: the library default (`SEEK_GAP_FRAMES`: forward within the gap, seek past it).

Reported: seconds each and the ratio seek / pass; then a sweep over sampling densities (60
wanted frames `gap` frames apart, for each `--sweep` gap): seek / pass per gap, whose
crossover (the gap past which a seek is cheaper than decoding forward) sets the default rule
`SEEK_GAP_FRAMES`.
Seconds depend on the machine and its load (`uptime` is printed): compare ratios.

`--codec h264` writes the film in H.264 with PyAV instead (libx264's keyframe spacing, as
in real films), where a seek decodes from a farther keyframe.

Usage: python benchmarks/bench_frames.py [--hours 2] [--video-fps 2] [--fps 0.2]
       [--size 96x54] [--codec mp4v|h264] [--sweep 10,30,60,120,240] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.frames import SEEK_GAP_FRAMES, read_frames  # noqa: E402
from tests.support.video_fixtures import h264_video, mp4v_video, stamp_of  # noqa: E402


def make_video(path: Path, seconds: float, fps: float, size: tuple[int, int], codec: str) -> int:
    (h264_video if codec == "h264" else mp4v_video)(path, seconds, fps, size)
    return int(seconds * fps)


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def sweep(
    path: Path, frames: int, fps: float, width: int, gaps: list[int], wanted: int = 60
) -> list[dict]:
    """Seek per frame against one pass for `wanted` frames `gap` frames apart, per gap: the
    density at which seeking starts to win (the crossover the default rule is set from)."""
    rows = []
    for gap in gaps:
        indices = [gap // 2 + k * gap for k in range(wanted) if gap // 2 + k * gap < frames]
        if len(indices) < 2:
            continue
        times = [i / fps for i in indices]
        _, seek_s, _ = timed(lambda times=times: read_frames(str(path), times, width, -1))
        _, pass_s, _ = timed(lambda times=times: read_frames(str(path), times, width, 10**9))
        rows.append({"gap_frames": gap, "frames": len(indices), "seek_s": seek_s,
                     "pass_s": pass_s, "seek_over_pass": seek_s / pass_s})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hours", type=float, default=2.0)
    parser.add_argument("--video-fps", type=float, default=2.0)
    parser.add_argument("--fps", type=float, default=0.2)
    parser.add_argument("--size", default="96x54")
    parser.add_argument("--codec", choices=("mp4v", "h264"), default="mp4v")
    parser.add_argument("--sweep", default="10,30,60,120,240", help="gaps (frames); '' = none")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "film.mp4"
        frames, made_s, _ = timed(
            lambda: make_video(path, args.hours * 3600, args.video_fps, size, args.codec)
        )
        duration = frames / args.video_fps
        times = [(k + 0.5) / args.fps for k in range(int(duration * args.fps))]
        expected = [int(np.floor(t * args.video_fps + 1e-6)) for t in times]
        report = {
            "uptime": os.getloadavg(),
            "video": {"frames": frames, "hours": args.hours, "fps": args.video_fps,
                      "size": args.size, "codec": args.codec,
                      "bytes": path.stat().st_size, "made_s": made_s},
            "sampled": len(times),
            "sample_fps": args.fps,
            "gap_frames": args.video_fps / args.fps,
        }  # fmt: skip
        for name, gap in (("seek", -1), ("pass", 10**9), ("auto", SEEK_GAP_FRAMES)):
            got, wall, cpu = timed(lambda gap=gap: read_frames(str(path), times, size[0], gap))
            stamps = [stamp_of(f) if f is not None else None for f in got]
            report[name] = {"wall_s": wall, "cpu_s": cpu, "right_frames": stamps == expected}
        report["ratio_seek_over_pass"] = report["seek"]["wall_s"] / report["pass"]["wall_s"]
        report["ratio_cpu_seek_over_pass"] = report["seek"]["cpu_s"] / report["pass"]["cpu_s"]
        gaps = [int(g) for g in args.sweep.split(",")] if args.sweep else []
        report["sweep"] = sweep(path, frames, args.video_fps, size[0], gaps)
        report["default_seek_gap_frames"] = SEEK_GAP_FRAMES
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
