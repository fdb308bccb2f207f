"""`storyscope export-task`: a question set as a task inspect_ai or lmms-eval runs as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store


@app.command("export-task")
def export_task_command(
    harness: Annotated[str, typer.Option(help="inspect | lmms-eval")] = "inspect",
    questions: Annotated[
        str,
        typer.Option(help="lfvqa (open-ended LF-VideoQA) | mcq (StoryVideoQA multiple choice)"),
    ] = "lfvqa",
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="Slice filter KEY=V1,V2; lfvqa: film, type, center, status, source, question;"
            " mcq: source, set, vid, type, element, question. Several joined by ';' or the"
            " option repeated, for AND."
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N questions.")] = None,
    task: Annotated[
        str | None,
        typer.Option(help="The task's name in the harness (default storyscope_<set>)."),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="The task folder to write.")] = None,
    force: Annotated[
        bool,
        typer.Option(
            help="Replace the task's files in --out if they exist (a link there is replaced"
            " itself, never written through)."
        ),
    ] = False,
    setting: Annotated[
        str | None,
        typer.Option(
            help="LF-VideoQA setting whose input each sample carries (question-only, screenplay,"
            " subtitles, captions, captions+subtitles, video, video+subtitles; docs/SETTINGS.md),"
            " or agent (inspect's agent with StoryScope's tools, --tier); default: the film's"
            " title only."
        ),
    ] = None,
    tier: Annotated[
        str | None,
        typer.Option(help="The agent's tool tier: regular | fast | oracle (--setting agent)."),
    ] = None,
    step_limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="The agent's model turns per question, default StoryScope's loop's (the"
            " task's `-T step_limit` overrides it).",
        ),
    ] = None,
    context_tokens: Annotated[
        int, typer.Option(min=256, help="The answering model's context window (the budget).")
    ] = 32768,
    answer_tokens: Annotated[int, typer.Option(min=16, help="Tokens kept for the reply.")] = 512,
    fps: Annotated[float, typer.Option(min=0.001, max=30.0, help="Video settings' fps.")] = 0.2,
    captioner: Annotated[
        str | None, typer.Option(help="Whose captions the caption settings read.")
    ] = None,
    as_json: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Write questions as a task the harness runs as it is: inspect_ai's task.py + dataset.jsonl,
    or lmms-eval's task YAML + JSONL + utils.py. Each sample keeps its StoryScope id, so
    `storyscope import results` links the harness's output back."""
    from pipelines.cli.parsing import parse_where
    from pipelines.export_task import FILTERS, ExportTaskError, export_task
    from pipelines.output_guard import OutputRefused

    if out is None:
        raise fail("--out DIR is required")
    if limit is not None and limit < 1:
        raise fail(f"--limit must be at least 1, got {limit}")
    if questions not in FILTERS:
        raise fail(f"--questions {questions!r}: use lfvqa or mcq")
    filters = parse_where(where, FILTERS[questions])
    options = None
    if setting is not None and setting != "agent":
        from pipelines.settings import SettingOptions

        options = SettingOptions(
            context_tokens=context_tokens, answer_tokens=answer_tokens, fps=fps, captioner=captioner
        )
    try:
        report = export_task(
            open_store(store, mode="read"),
            harness,
            questions,
            out,
            where=filters,
            limit=limit,
            task=task,
            force=force,
            setting=setting,
            setting_options=options,
            tier=tier,
            step_limit=step_limit,
        )
    except (ExportTaskError, OutputRefused) as exc:
        raise fail(str(exc)) from None
    if as_json:
        files = {role: str(path) for role, path in report.files.items()}
        summary = {"task": report.task, "harness": report.harness, "files": files}
        summary["replaced_links"] = report.replaced_links
        typer.echo(json.dumps({**summary, "n_samples": report.n_samples}))
        return
    for note in report.replaced_links:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"{report.task}: {report.n_samples} {questions} questions → {report.out}")
    typer.echo(f"run it with: {report.run_hint()}")
