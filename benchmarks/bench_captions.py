"""Caption driver cost: the CPU of `storyscope film caption` per 10-second chunk of a film.

A synthetic film (`--hours`, default a quarter hour: 90 chunks, about a minute here; a 2-hour
film is 720 chunks of the same per-chunk cost; opencv mp4v, 384x216 at `--video-fps`, each
frame a textured picture so its JPEG weighs what a real frame's does) is registered for the
sample film in a temporary store. Measured in one run, with `time.process_time` (this
process's CPU: the driver, and with the local executor the gateway's calls too), as the
judge's figures are (benchmarks/bench_judge.py, docs/SCALE.md):

1. `frames`: extracting the film's caption frames (0.5 fps: 5 per chunk) into the frame cache,
   one pass (`pipelines.video.captions.film_chunks`);
2. `requests`: building every chunk's request (reading the JPEGs, base64, the prompt) and its
   cache key, the driver's own work per chunk before any call;
3. `run`: the whole caption run on the local executor against the scripted OpenAI-compatible
   server in a child process (its CPU is not ours; `--latency` per reply, `--concurrency`):
   per chunk, all of it (requests, keys, HTTP, parsing, cache and row writes);
4. `replay`: the same command again as a new run: every reply from the store's cache, no call;
   what the driver alone spends per chunk (keys, cache reads, rows).

Seconds depend on the machine and its load (printed): compare the parts with each other.

Usage: python benchmarks/bench_captions.py [--hours 0.25] [--latency 0.05] [--concurrency 16]
       [--json OUT]
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

from data_access.store import Store  # noqa: E402
from data_access.tables.films import set_film_video  # noqa: E402
from pipelines.llm import LLMConfig  # noqa: E402
from pipelines.scale import LocalExecutor  # noqa: E402
from pipelines.video import captions  # noqa: E402
from tests.support.fake_server import FakeLLMServer, FakeReply  # noqa: E402
from tests.support.video_fixtures import ingest_sample_film  # noqa: E402

SIZE = (384, 216)


class Captioner:
    """Picklable handler: a fixed caption after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __call__(self, body: dict, number: int) -> FakeReply:
        return FakeReply(
            content="Two people talk on a windy pier; one points out to sea.",
            delay_s=self.latency,
        )


def textured_video(path: Path, seconds: float, fps: float) -> int:
    """Frames of smooth random texture (a fixed seed) with a moving band: JPEGs of a few tens
    of KB, like a film's, not the few KB of a flat card."""
    import cv2

    rng = np.random.default_rng(7)
    base = cv2.resize(rng.integers(0, 255, (9, 16, 3), np.uint8), SIZE)
    grain = rng.integers(0, 12, (SIZE[1], SIZE[0], 3), np.uint8)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, SIZE)
    frames = int(seconds * fps)
    for index in range(frames):
        frame = np.roll(base, index * 3, axis=1) + grain
        cv2.putText(frame, str(index), (20, 120), 0, 2.0, (255, 255, 255), 3)
        writer.write(frame)
    writer.release()
    return frames


def cpu_of(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hours", type=float, default=0.25)
    parser.add_argument("--video-fps", type=float, default=1.0)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["STORYSCOPE_FRAME_CACHE"] = str(tmp / "frame-cache")
        store = Store(tmp / "store.duckdb", lock_timeout=30)
        film = ingest_sample_film(store)
        _, made_s, _ = cpu_of(lambda: textured_video(tmp / "film.mp4", args.hours * 3600,
                                                     args.video_fps))  # fmt: skip
        set_film_video(store, film, str(tmp / "film.mp4"), args.video_fps)
        chunks, frames_wall, frames_cpu = cpu_of(lambda: captions.film_chunks(store, film))
        n = len(chunks)
        jpeg_kb = np.mean([f.jpeg_path.stat().st_size for c in chunks for f in c.frames]) / 1024
        requests, req_wall, req_cpu = cpu_of(lambda: captions.caption_requests(film, chunks))
        server = FakeLLMServer(Captioner(args.latency), in_subprocess=True).start()
        try:
            config = LLMConfig(
                base_url=server.base_url,
                model="fake-vlm",
                api_key="sk-bench",
                concurrency=args.concurrency,
                timeout_s=30.0,
            )
            report, run_wall, run_cpu = cpu_of(
                lambda: captions.caption_film(store, film, LocalExecutor(), config=config)
            )
            assert report.batch.complete, report.batch.failures
            replay, replay_wall, replay_cpu = cpu_of(
                lambda: captions.caption_film(store, film, LocalExecutor(), config=config)
            )
            assert replay.batch.complete and replay.run_id != report.run_id
        finally:
            server.stop()
        cached = store.rows(
            "SELECT count(*) FILTER (WHERE cached), count(*) FROM llm_calls WHERE run_id = ?",
            [replay.run_id],
        )[0]
        store_mb = (tmp / "store.duckdb").stat().st_size / 2**20

    def per_chunk(wall: float, cpu: float) -> dict:
        return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                "cpu_ms_per_chunk": round(1000 * cpu / n, 3)}  # fmt: skip

    result = {
        "load": os.getloadavg(),
        "film": {"hours": args.hours, "video_fps": args.video_fps, "made_s": round(made_s, 2)},
        "chunks": n,
        "frames": sum(len(c.frames) for c in chunks),
        "jpeg_kb_mean": round(float(jpeg_kb), 1),
        "request_kb_mean": round(
            float(np.mean([len(json.dumps(r.messages)) for r in requests])) / 1024, 1
        ),
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "frames_step": per_chunk(frames_wall, frames_cpu),
        "requests_step": per_chunk(req_wall, req_cpu),
        "run": per_chunk(run_wall, run_cpu),
        "replay": {
            **per_chunk(replay_wall, replay_cpu),
            "cached_calls": cached[0],
            "calls": cached[1],
        },  # fmt: skip
        "ideal_run_wall_s": round(n * args.latency / args.concurrency, 2),
        "store_mb_after_two_runs": round(store_mb, 1),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
