"""`--executor local|ray` and `--ray-address` for the heavy commands (docs/SCALE.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from pipelines.cli.app import fail

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        envvar="STORYSCOPE_EXECUTOR",
        help="local (this process) or ray (an embedded local Ray, or a cluster: --ray-address).",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        envvar="STORYSCOPE_RAY_ADDRESS",
        help="Ray cluster to join: auto, or ray://host:port (default: start Ray here).",
    ),
]


def open_executor(name: str, address: str | None):
    """The executor asked for, or a clean CLI error."""
    from pipelines.scale import make_executor

    try:
        return make_executor(name, address)
    except ValueError as exc:
        raise fail(str(exc)) from exc


def progress_bar(label: str, width: int = 24):
    """A progress callback drawing `label [#####-----] done/total, failed` on stderr, with
    each failed unit's reason on its own line."""

    def show(progress) -> None:
        last = progress.last
        if last is not None and not last.ok:
            typer.echo(f"\n{label}: unit {last.key} failed: {last.error}", err=True)
        filled = int(width * (progress.done + progress.failed) / max(progress.total, 1))
        typer.echo(
            f"\r{label} [{'#' * filled}{'-' * (width - filled)}] "
            f"{progress.done}/{progress.total} units, {progress.failed} failed",
            err=True,
            nl=progress.done + progress.failed >= progress.total,
        )

    return show


def batch_summary(batch, **first) -> dict:
    """What a scaled-out command prints for its batch (`first`: fields shown before)."""
    summary = {
        **first,
        "executor": batch.executor,
        "units": batch.total,
        "done": batch.done,
        "failed": batch.failed,
        "resumed_from": batch.resumed_from,
        "wall_s": round(batch.wall_s, 2),
    }
    if batch.abandoned_runs:  # left `running` by a killed driver, closed by this resume
        summary["abandoned_runs_closed"] = len(batch.abandoned_runs)
    if batch.budget is not None:
        summary["budget"] = batch.budget
    return summary
