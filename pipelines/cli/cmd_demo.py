"""`storyscope demo`: build the demo store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import StoreOption, app, fail, open_store


@app.command()
def demo(
    store: StoreOption = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            envvar="STORYSCOPE_DATA_DIR",
            help="Real datasets folder (../shared/data).",
        ),
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Run only steps whose name contains this.")
    ] = None,
) -> None:
    """Build the demo store from samples/ and, with --data-dir, the real datasets too."""
    from pipelines.demo import build_demo

    if data_dir is not None and not data_dir.is_dir():
        raise fail(f"--data-dir {data_dir} is not a folder")
    handle = open_store(store, mode="create")
    steps = build_demo(handle, data_dir, typer.echo, set(only) if only else None)
    typer.echo(f"demo store {handle.path}: {len(steps)} steps")
