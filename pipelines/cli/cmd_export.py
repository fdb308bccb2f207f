"""`storyscope export`: any table or view of the store, with run ids, to parquet / csv / jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import StoreOption, app, fail, open_store


def parse_filters(items: list[str] | None) -> dict[str, list[str]]:
    """`--where COLUMN=V1,V2` (repeatable) → {column: [values]}; columns are checked later
    against the export's own columns."""
    where: dict[str, list[str]] = {}
    for item in items or []:
        column, sep, values = item.partition("=")
        if not sep or not column.strip() or not values.strip():
            raise ValueError(f"--where {item!r}: expected COLUMN=V1,V2")
        where.setdefault(column.strip(), []).extend(v.strip() for v in values.split(","))
    return where


@app.command()
def export(
    what: Annotated[
        str, typer.Argument(help="Table or view: storyscope export --list shows them.")
    ] = "",
    where: Annotated[
        list[str] | None,
        typer.Option(help="COLUMN=V1,V2 (repeatable; rows where COLUMN is one of)"),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="parquet | csv | jsonl")] = "jsonl",
    out: Annotated[
        Path | None, typer.Option(help="Output file (folder with --interchange).")
    ] = None,
    interchange: Annotated[
        bool,
        typer.Option(
            help="Only the interchange fields, as <table>.<fmt> + manifest.json in the --out "
            "folder: re-imports with `storyscope import lfvqa`."
        ),
    ] = False,
    list_exports: Annotated[
        bool, typer.Option("--list", help="List what can be exported.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Export questions, claims, answers, verdicts (humans included), metrics, beliefs, MCQs with
    difficulty, PlotTree nodes, reviews... with the run ids that made each row."""
    from data_access.export import EXPORTS, ExportError
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
    try:
        report = export_slice(open_store(store), what, fmt, out, parse_filters(where), interchange)
    except (ExportError, ValueError) as exc:
        raise fail(str(exc)) from None
    typer.echo(f"{report.name}: {report.rows} rows, {len(report.columns)} columns → {report.path}")
