"""`storyscope synth`: write a synthetic dataset at the papers' scale."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import app, fail


@app.command()
def synth(
    out: Annotated[
        Path, typer.Option("--out", envvar="STORYSCOPE_SYNTH_OUT", help="Folder to write.")
    ],
    scale: Annotated[
        str, typer.Option("--scale", envvar="STORYSCOPE_SYNTH_SCALE", help="paper | 10x | small")
    ] = "paper",
    seed: Annotated[int, typer.Option("--seed", envvar="STORYSCOPE_SYNTH_SEED")] = 7,
    fmt: Annotated[
        str, typer.Option("--format", envvar="STORYSCOPE_SYNTH_FORMAT", help="parquet | jsonl")
    ] = "parquet",
    force: Annotated[
        bool,
        typer.Option(
            "--force", envvar="STORYSCOPE_SYNTH_FORCE", help="Replace files already in --out."
        ),
    ] = False,
) -> None:
    """Write a synthetic dataset (interchange format) at the papers' scale, deterministically.

    Files already in --out are replaced only with --force; the store is never written."""
    from data_access.store import default_store_path
    from pipelines.output_guard import OutputRefused, safe_output_folder
    from pipelines.synth import SCALES, write_synthetic_dataset
    from pipelines.synth.paper_scale import TABLES

    if scale not in SCALES:
        raise fail(f"--scale must be one of {', '.join(SCALES)}")
    if fmt not in ("parquet", "jsonl"):
        raise fail("--format must be parquet or jsonl")
    names = ["manifest.json", *(f"{table}.{fmt}" for table in TABLES)]
    try:
        safe_output_folder(out, names, store=default_store_path(), force=force)
    except OutputRefused as exc:
        raise fail(str(exc)) from None
    counts = write_synthetic_dataset(out, scale=scale, seed=seed, fmt=fmt)
    for name, n in counts.items():
        typer.echo(f"{name:<20} {n:>10,}")
    typer.echo(f"wrote {sum(counts.values()):,} rows to {out}")
