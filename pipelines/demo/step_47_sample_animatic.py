"""Demo step 47: the sample film gets a video. "The Keeper's Ledger" (step 30) has no footage,
so its animatic is rendered with opencv from the store (one card per scene: heading, who is in
it, the line being spoken, timed by its subtitles; `pipelines.video.animatic`) into `videos/`
beside the store, and registered as the film's video, so frames, captions and the video
settings show real content on a fresh machine. After step 45, so the cards name who is on
screen by the presence records. Reruns keep a registered video whose file exists."""

from __future__ import annotations

import time
from pathlib import Path

from data_access.queries.video import film_video
from data_access.store import Store
from data_access.tables.films import set_film_video
from pipelines.video.animatic import FPS, render_animatic

SAMPLE_FILM_ID = "the-keepers-ledger"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Render and register the sample film's animatic unless it has a video already."""
    row = film_video(store, SAMPLE_FILM_ID)
    if row is None:
        echo(f"  {SAMPLE_FILM_ID}: not in the store, skipped")
        return
    registered = row["video_path"]
    if isinstance(registered, str) and registered and Path(registered).is_file():
        echo(f"  {SAMPLE_FILM_ID}: video {registered} already registered, skipped")
        return
    started = time.perf_counter()
    report = render_animatic(store, SAMPLE_FILM_ID)
    set_film_video(store, SAMPLE_FILM_ID, str(report.path), FPS)
    echo(
        f"  {SAMPLE_FILM_ID}: animatic {report.path.name} ({report.frames} frames, "
        f"{report.duration_s / 60:.1f} min, {report.path.stat().st_size // 1024} KiB) in "
        f"{time.perf_counter() - started:.1f} s"
    )
