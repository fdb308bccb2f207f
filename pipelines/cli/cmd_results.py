"""`storyscope import results FILE_OR_DIR`: a harness's per-sample outputs in as answers or MCQ
predictions of one setting (pipelines/results/, docs/FORMAT.md "Bring your results")."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from data_access.importers.results.formats import FORMAT_NAMES, MAP_FIELDS
from pipelines.cli.app import JsonOption, StoreOption, fail, import_app, open_store

# the --format choices: `auto` and every registered format (data_access/importers/results/
# formats.py), so a new format is offered here without being listed again
ResultsFormat = StrEnum(
    "ResultsFormat", {name.replace("-", "_"): name for name in ("auto", *FORMAT_NAMES)}
)


class SettingSource(StrEnum):
    screenplay = "screenplay"
    subtitles = "subtitles"
    captions = "captions"
    captions_subtitles = "captions+subtitles"
    video = "video"
    video_subtitles = "video+subtitles"
    agent = "agent"


def _column_map(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        field, sep, column = pair.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise fail(f"--map {pair!r}: expected FIELD=COLUMN (e.g. question_id=doc_id)")
        mapping[field.strip()] = column.strip()
    return mapping


@import_app.command("results")
def import_results_command(
    path: Annotated[
        Path, typer.Argument(help="A harness's results file, or its folder.", show_default=False)
    ],
    format: Annotated[
        ResultsFormat, typer.Option("--format", help="The harness that wrote the file.")
    ] = ResultsFormat("auto"),
    setting: Annotated[
        str | None,
        typer.Option(help="Setting (or MCQ method) name; default <harness>:<model>:<task>."),
    ] = None,
    column_map: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            envvar="STORYSCOPE_IMPORT_RESULTS_MAP",
            help=f"FIELD=COLUMN ({', '.join(MAP_FIELDS)}; each format takes those its reader"
            " uses); repeatable.",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Read, link and report; write nothing.")
    ] = False,
    source: Annotated[
        SettingSource, typer.Option(help="What the model saw (the new setting's source).")
    ] = SettingSource.video,
    batch_input: Annotated[
        Path | None,
        typer.Option(help="The OpenAI Batch input JSONL the output answers.", show_default=False),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="The model, for a file that does not name it (samples without their results"
            " summary, a table).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import per-sample results of lmms-eval, VLMEvalKit, inspect_ai, lm-evaluation-harness,
    the OpenAI Batch API or any table, linked to questions already in the store."""
    from data_access.importers import ImportFailure
    from pipelines.results import import_results

    try:
        report = import_results(
            open_store(store),
            path,
            format=format.value,
            setting=setting,
            column_map=_column_map(column_map or []),
            dry_run=dry_run,
            source=source.value,
            batch_input=batch_input,
            model=model,
        )
    except ImportFailure as exc:  # one line: the first problem names file, record and field
        more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
        would = "dry run: the import would be refused; " if dry_run else ""
        raise fail(f"{would}nothing was written: {exc.first}{more}") from None
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
    else:
        typer.echo("\n".join(report.lines()))
    if report.would_refuse:  # the dry run reported; it exits as the import would
        raise fail(
            f"dry run: the import would be refused; nothing was written: {report.would_refuse}"
        )
