"""`storyscope film frames` and `storyscope film caption`: frames sampled from a film's
registered video, and a caption for every 10-second chunk of it (LF-VideoQA §4.1-4.2;
docs/VIDEO.md)."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, fail, open_store
from pipelines.cli.cmd_film import film_app
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption

FilmOption = Annotated[str, typer.Option("--film", help="Film id in the store.")]


@film_app.command("frames")
def film_frames(
    film: FilmOption,
    fps: Annotated[
        float, typer.Option("--fps", min=0.001, max=30.0, help="Frames per second (§4.2: 0.2).")
    ] = 0.2,
    start: Annotated[float | None, typer.Option("--start", min=0.0, help="From (s).")] = None,
    end: Annotated[float | None, typer.Option("--end", min=0.0, help="To (s).")] = None,
    width: Annotated[int, typer.Option("--width", min=16, max=4096, help="Pixels.")] = 448,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extract the film's frames at --fps from its registered video into the frame cache
    (JPEGs keyed by video, time and width; frames already cached are not decoded again)."""
    from pipelines.frames import frame_cache_dir
    from pipelines.video.sampling import NoVideo, sample_frames

    started = time.perf_counter()
    try:
        frames = sample_frames(open_store(store, mode="write"), film, fps, start, end, width)
    except (NoVideo, ValueError) as exc:
        raise fail(str(exc)) from None
    summary = {
        "film_id": film,
        "fps": fps,
        "frames": len(frames),
        "first_s": frames[0].time_s if frames else None,
        "last_s": frames[-1].time_s if frames else None,
        "width": width,
        "cache": str(frames[0].jpeg_path.parent if frames else frame_cache_dir()),
        "seconds": round(time.perf_counter() - started, 2),
    }
    typer.echo(json.dumps(summary) if as_json else " ".join(f"{k}={v}" for k, v in summary.items()))


@film_app.command("caption")
def film_caption(
    film: FilmOption,
    model: Annotated[
        str | None, typer.Option("--model", help="Captioner (a vision-language model).")
    ] = None,
    chunk: Annotated[
        float, typer.Option("--chunk", min=1.0, max=600.0, help="Chunk length in s (§4.1: 10).")
    ] = 10.0,
    fps: Annotated[
        float, typer.Option("--fps", min=0.01, max=10.0, help="Frames per second shown.")
    ] = 0.5,
    width: Annotated[int, typer.Option("--width", min=16, max=4096, help="Pixels.")] = 384,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Caption every --chunk seconds of the film's registered video through the gateway (the
    chunk's frames as image parts, the names the store knows for its time span), as one run.
    A killed run resumes when the same command is given again."""
    from pipelines.cli.scale_options import batch_summary, open_executor, progress_bar
    from pipelines.video.captions import caption_film
    from pipelines.video.sampling import NoVideo

    handle = open_store(store, mode="write")
    runner = open_executor(executor, ray_address)
    try:
        report = caption_film(
            handle,
            film,
            runner,
            {"model": model} if model else None,
            chunk_s=chunk,
            fps=fps,
            width=width,
            progress=progress_bar("captions"),
        )
    except (NoVideo, ValueError) as exc:
        raise fail(str(exc)) from None
    finally:
        runner.close()
    batch = report.batch
    summary = batch_summary(
        batch,
        film_id=film,
        run_id=report.run_id,
        model=report.model,
        chunks=report.chunks,
        frames=report.frames,
        frames_s=round(report.frames_s, 2),
    )
    typer.echo(json.dumps(summary) if as_json else " ".join(f"{k}={v}" for k, v in summary.items()))
    if batch.failed:
        raise fail(f"{batch.failed} unit(s) failed; run the same command again to retry them")
