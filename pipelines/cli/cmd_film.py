"""`storyscope film ...` (ingest, parse) and `storyscope align-eval` (LF-VideoQA App. C;
StoryMindv2 §3.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store

film_app = typer.Typer(
    help="Film preprocessing: screenplay + subtitles -> timed scenes.", no_args_is_help=True
)
app.add_typer(film_app, name="film")


@film_app.command("ingest")
def film_ingest(
    screenplay: Annotated[
        Path,
        typer.Option("--screenplay", help="Screenplay: plain text (IMSDb style) or .fountain."),
    ],
    subtitles: Annotated[
        Path, typer.Option("--subtitles", help="Subtitles of the same film (.srt).")
    ],
    title: Annotated[
        str | None, typer.Option("--title", help="Film title (default: from the file).")
    ] = None,
    year: Annotated[int | None, typer.Option("--year", min=1880, max=2100)] = None,
    video: Annotated[
        Path | None,
        typer.Option("--video", help="Video file: its path and frame rate are recorded."),
    ] = None,
    film_id: Annotated[
        str | None, typer.Option("--film-id", help="Film id (default: slug of title and year).")
    ] = None,
    lenient_subtitles: Annotated[
        bool,
        typer.Option(
            "--lenient-subtitles", help="Skip unreadable cues (reported) instead of failing."
        ),
    ] = False,
    min_match: Annotated[
        float | None,
        typer.Option(
            "--min-match",
            min=0.0,
            max=1.0,
            envvar="STORYSCOPE_MIN_MATCH",
            help="Accept the pair when at least this FRACTION of dialogue lines match a cue "
            "(default 0.15). Lower it deliberately for an early draft of the right film.",
        ),
    ] = None,
    summaries: Annotated[
        str,
        typer.Option(
            help="Scene summaries after ingest (App. C): extractive (offline, labelled as "
            "such) | openai (the gateway, Table 16 prompt) | none.",
            envvar="STORYSCOPE_SUMMARIES",
        ),
    ] = "extractive",
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Parse, align and store one film (scenes, lines, characters, subtitles) as one run, then
    summarise its scenes as a second run."""
    from pipelines.preprocess.files import ScreenplayError
    from pipelines.preprocess.ingest import VideoError, ingest_film
    from pipelines.preprocess.srt_reader import SubtitleError
    from pipelines.preprocess.timing import AlignmentFailed

    try:
        report = ingest_film(
            open_store(store, mode="create"),
            screenplay,
            subtitles,
            title=title,
            year=year,
            video=video,
            film_id=film_id,
            lenient_subtitles=lenient_subtitles,
            min_match=min_match,
        )
    except AlignmentFailed as exc:
        raise fail(
            f"alignment failed for {screenplay} + {subtitles}: {exc}; nothing was written "
            "(an early draft of the right film? accept it with --min-match FRACTION)"
        ) from None
    except (ScreenplayError, SubtitleError, VideoError, ValueError) as exc:
        raise fail(f"{exc}; nothing was written") from None
    summary = _summarise(store, report.film_id, summaries)
    if as_json:
        payload = report.as_dict()
        if summary is not None:
            payload["summaries"] = {"backend": summary.backend, "scenes": summary.scenes}
        typer.echo(json.dumps(payload))
        return
    typer.echo(
        f"{report.film_id}: {report.scenes} scenes, {report.dialogue_lines} dialogue lines "
        f"({report.share_lines_matched:.1%} matched to subtitles), "
        f"{report.share_scenes_matched:.1%} of "
        f"scenes with matched times, {report.cues} cues, {report.characters} characters [run "
        f"{report.run_id}, "
        "backend rules]"
    )


@film_app.command("video")
def film_video(
    film_id: Annotated[str, typer.Argument(help="A film already in the store.")],
    video: Annotated[Path, typer.Argument(help="Its video file (anything OpenCV reads).")],
    store: StoreOption = None,
) -> None:
    """Register a film's video after ingest (its path and frame rate), so the pages show the
    frame at each evidence time and the Film page a strip of scene keyframes."""
    from data_access.tables.films import set_film_video
    from pipelines.frames import VideoError, probe_video

    if not video.is_file():
        raise fail(f"{video}: no such video file; nothing was written")
    try:
        fps, duration = probe_video(video)
    except VideoError as exc:
        raise fail(f"{exc}; nothing was written") from None
    try:
        set_film_video(open_store(store, mode="write"), film_id, str(video.resolve()), fps)
    except KeyError:
        raise fail(f"no film {film_id!r} in the store; nothing was written") from None
    length = "unknown length" if duration is None else f"{duration / 60:.1f} min"
    typer.echo(f"{film_id}: video {video} registered ({fps:g} fps, {length})")


def _summarise(store, film_id: str, backend: str):
    """Scene summaries for a freshly ingested film, or None with --summaries none."""
    if backend == "none":
        return None
    from pipelines.preprocess.summaries import summarise_film

    try:
        return summarise_film(open_store(store, mode="write"), film_id, backend)
    except ValueError as exc:
        raise fail(f"{exc} (the film itself was stored)") from None


@film_app.command("summarise")
def film_summarise(
    film: Annotated[str, typer.Option("--film", help="Film id in the store.")],
    backend: Annotated[
        str, typer.Option(help="extractive (offline) | openai (the gateway, Table 16 prompt).")
    ] = "extractive",
    model: Annotated[str | None, typer.Option(help="Model (openai backend).")] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summarise every scene of a stored film (LF-VideoQA App. C, Table 16) as one run."""
    from pipelines.preprocess.summaries import summarise_film

    try:
        report = summarise_film(
            open_store(store, mode="write"), film, backend, {"model": model} if model else None
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(report.__dict__))
        return
    typer.echo(
        f"{report.film_id}: {report.scenes} scene summaries (backend {report.backend}, "
        f"run {report.run_id}){f', {report.failed} failed' if report.failed else ''}"
    )


@film_app.command("parse")
def film_parse(
    screenplay: Annotated[Path, typer.Argument(help="Screenplay file (plain text or .fountain).")],
) -> None:
    """Print a screenplay in the LF-VideoQA Table 15 scene format (no store needed)."""
    from pipelines.preprocess.files import ScreenplayError, parse_screenplay_file

    try:
        typer.echo(parse_screenplay_file(screenplay).to_table15())
    except ScreenplayError as exc:
        raise fail(str(exc)) from None


@app.command("align-eval")
def align_eval(
    files: Annotated[
        list[Path],
        typer.Argument(help="StoryVideoQA aligned-script files (.json conversion or .xlsx)."),
    ],
    as_json: JsonOption = False,
    method: Annotated[
        str,
        typer.Option(
            help="dp: the ingest aligner (LF-VideoQA App. C); "
            "dtw: classic DTW as the release (StoryMindv2 §3.1) with our cost."
        ),
    ] = "dp",
) -> None:
    """Our cue->script alignment and the dataset's automatic one, scored against results_human.

    `ours` / `automatic`: share of cues whose script row has the human's scene and speaker (the
    fields the annotators corrected); row, scene and speaker agreement are printed apart.
    """
    from pipelines.preprocess.align_eval import evaluate_file, summarise
    from pipelines.preprocess.aligned_script import AlignedScriptError

    try:
        results = [evaluate_file(path, method) for path in files]
    except AlignedScriptError as exc:
        raise fail(str(exc)) from None
    summary = summarise(results)
    groups = summary.pop("groups")
    if as_json:
        typer.echo(json.dumps(summary))  # {"files": [...], "ours_mean", "automatic_mean"}
        return
    typer.echo(f"method {method}; ours/automatic = cue's row has the human scene and speaker")
    for row in summary["files"]:
        fields = "  ".join(
            f"{name} {row[name]['ours']:.3f}/{row[name]['automatic']:.3f}"
            f" (humans edited {row[name]['edited']})"
            for name in ("scene", "speaker", "row")
        )
        typer.echo(
            f"{row['file']}: {row['cues']} cues  ours {row['ours']:.3f}  automatic "
            f"{row['automatic']:.3f}"
            f"  | {fields}  | human rows outside the human scene: {row['stale_rows']}"
        )
        where = row["scene_where_pair_exists"]
        if where:
            typer.echo(
                f"    human (scene, speaker) not a script row: {row['gold_pair_absent']} cues;"
                f" scene on the other cues {where['ours']:.3f}/{where['automatic']:.3f};"
                f" human scenes in script order: {row['human_scene_monotone']}"
            )
    typer.echo(f"mean: ours {summary['ours_mean']:.3f}  automatic {summary['automatic_mean']:.3f}")
    for group, values in groups.items():
        fields = "  ".join(
            f"{name} {values[name + '_mean']['ours']:.3f}/{values[name + '_mean']['automatic']:.3f}"
            for name in ("scene", "speaker", "row")
        )
        typer.echo(
            f"  {group}: ours {values['ours_mean']:.3f}  automatic {values['automatic_mean']:.3f}"
            f"  (ours >= automatic on {values['wins']} of {values['files']} files)  | {fields}"
        )
