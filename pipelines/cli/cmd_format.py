"""`storyscope format-doc [--check]`: write or check docs/FORMAT.md from the format models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import app, fail

DEFAULT_DOC = Path("docs") / "FORMAT.md"


@app.command("format-doc")
def format_doc_command(
    check: Annotated[
        bool, typer.Option("--check", help="Fail if the file differs; write nothing.")
    ] = False,
    out: Annotated[
        Path, typer.Option("--out", help="The document to write or check.")
    ] = DEFAULT_DOC,
) -> None:
    """Generate docs/FORMAT.md from the interchange models (`formats/lfvqa_records.py`)."""
    from data_access.importers.format_doc import format_doc

    text = format_doc()
    if check:
        current = out.read_text(encoding="utf-8") if out.is_file() else None
        if current != text:
            raise fail(
                f"{out} is out of date with the format models; run `storyscope format-doc`", 1
            )
        typer.echo(f"{out} is current")
        return
    from data_access.store import default_store_path
    from pipelines.output_guard import OutputRefused, safe_output_path

    try:  # rewriting the document is this command's job (force), the store never is
        safe_output_path(out, store=default_store_path(), force=True)
    except OutputRefused as exc:
        raise fail(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {out} ({len(text.splitlines())} lines)")
