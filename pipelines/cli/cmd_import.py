"""`storyscope import lfvqa DIR` and `storyscope import storyvideoqa DIR`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, fail, import_app, open_store

FolderArg = Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)]


def _print_report(report, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
        return
    typer.echo(f"imported {report.source} as dataset {report.dataset_id} (run {report.run_id})")
    for table, n in report.rows.items():
        typer.echo(f"  {table:<20} {n:>10,}")
    for note in report.notes:
        typer.echo(f"  note: {note}")


def _run_import(importer, folder: Path, store: Path | None, as_json: bool) -> None:
    from data_access.importers import ImportFailure

    try:
        report = importer(open_store(store), folder)
    except ImportFailure as exc:
        raise fail(exc.describe()) from None
    _print_report(report, as_json)


@import_app.command("lfvqa")
def import_lfvqa(folder: FolderArg, store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Import a folder in the interchange format (manifest.json + one file per table)."""
    from data_access.importers import import_lfvqa_dir

    _run_import(import_lfvqa_dir, folder, store, as_json)


@import_app.command("storyvideoqa")
def import_storyvideoqa(
    folder: FolderArg, store: StoreOption = None, as_json: JsonOption = False
) -> None:
    """Import a StoryVideoQA release: golden questions and aligned scripts (.xlsx or JSON)."""
    from data_access.importers import import_storyvideoqa_dir

    _run_import(import_storyvideoqa_dir, folder, store, as_json)
