"""`storyscope store check` and `storyscope store backup PATH` (README, "Recovering a damaged
store")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store

store_app = typer.Typer(help="Check and back up the store file.", no_args_is_help=True)
app.add_typer(store_app, name="store")


@store_app.command("check")
def check(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Read every table in full, so DuckDB verifies every block; exit 2 when any is damaged."""
    from data_access.store.health import RECOVERY, full_check

    # the open itself refuses a truncated store or bad metadata
    handle = open_store(store, mode="read")
    with handle.session() as cursor:
        results = full_check(cursor)
    damaged = [result for result in results if result.problem]
    if as_json:
        rows = [{"table": r.table, "rows": r.rows, "problem": r.problem} for r in results]
        typer.echo(json.dumps({"store": str(handle.path), "tables": rows}, indent=2))
    else:
        for result in damaged:
            typer.echo(f"  {result.table}: {result.problem}")
        readable = len(results) - len(damaged)
        typer.echo(f"{handle.path}: {readable} of {len(results)} tables read in full")
    if damaged:
        raise fail(f"{len(damaged)} table(s) of {handle.path} are damaged: {RECOVERY}")


@store_app.command("backup")
def backup_cmd(
    destination: Annotated[Path, typer.Argument(help="The new file to write the copy to.")],
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace DESTINATION if it exists.", envvar="STORYSCOPE_BACKUP_FORCE"
        ),
    ] = False,
    store: StoreOption = None,
) -> None:
    """Write a consistent copy of the store to a new file (safe while the app runs).

    DESTINATION is never the store or its WAL; an existing file is replaced only with --force
    (whole, once the copy is complete)."""
    from data_access.store.health import backup
    from pipelines.output_guard import OutputRefused, replace_atomically, safe_output_path

    handle = open_store(store, mode="read")
    try:
        target = safe_output_path(destination, store=handle.path, force=force, label="DESTINATION")
    except OutputRefused as exc:
        raise fail(str(exc)) from None

    def copy_to(path: Path) -> None:
        with handle.session() as cursor:
            backup(cursor, path)

    replace_atomically(target, copy_to)
    typer.echo(f"backed up {handle.path} to {target}")
