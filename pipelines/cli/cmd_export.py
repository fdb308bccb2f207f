"""`storyscope export`: any table or view of the store, with run ids, to parquet / csv / jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import StoreOption, app, fail, open_store


@app.command()
def export(
    what: Annotated[
        str, typer.Argument(help="Table or view: storyscope export --list shows them.")
    ] = "",
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="COLUMN=V1,V2: rows whose COLUMN is one of the values (repeat, or join with ;).",
            envvar="STORYSCOPE_WHERE",
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="parquet | csv | jsonl", envvar="STORYSCOPE_FORMAT")
    ] = "jsonl",
    out: Annotated[
        Path | None,
        typer.Option(help="Output file (folder with --interchange).", envvar="STORYSCOPE_OUT"),
    ] = None,
    interchange: Annotated[
        bool,
        typer.Option(
            help="Only the interchange fields, as <table>.<fmt> + manifest.json in the --out "
            "folder: re-imports with `storyscope import lfvqa`.",
            envvar="STORYSCOPE_INTERCHANGE",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace the --out file if it exists.", envvar="STORYSCOPE_EXPORT_FORCE"
        ),
    ] = False,
    list_exports: Annotated[
        bool,
        typer.Option("--list", help="List what can be exported.", envvar="STORYSCOPE_EXPORT_LIST"),
    ] = False,
    store: StoreOption = None,
) -> None:
    """Export questions, claims, answers, verdicts (humans included), metrics, beliefs, MCQs with
    difficulty, PlotTree nodes, reviews... with the run ids that made each row.

    --out is never the store or its WAL, and an existing file is replaced only with --force."""
    from data_access.queries.export_rows import EXPORTS, ExportError, columns_of
    from pipelines.cli.parsing import parse_where
    from pipelines.export import export_slice

    if list_exports or not what:
        for name, source in EXPORTS.items():
            importable = "  (importable)" if source.interchange else ""
            typer.echo(f"{name:<20} {source.description}{importable}")
        if not list_exports:
            raise fail("name what to export (listed above)")
        return
    if out is None:
        raise fail("--out PATH is required")
    handle = open_store(store, mode="read")
    try:
        columns = columns_of(handle, what)  # the keys --where accepts: this export's columns
        filters = parse_where(where, {column: column for column in columns})
        report = export_slice(handle, what, fmt, out, filters, interchange, force)
    except (ExportError, ValueError) as exc:  # OutputRefused is a ValueError
        raise fail(str(exc)) from None
    if not report.written:
        typer.echo(
            f"{report.name}: no rows, so no {report.path.name} (an interchange folder leaves an"
            " empty table's file out)"
        )
        return
    typer.echo(f"{report.name}: {report.rows} rows, {len(report.columns)} columns → {report.path}")
