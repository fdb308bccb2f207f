"""`storyscope film summarise-many`: scene summaries of many films on --executor (one unit per
film; docs/SCALE.md)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, fail, open_store
from pipelines.cli.cmd_film import film_app
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption


@film_app.command("summarise-many")
def film_summarise_many(
    films: Annotated[
        str | None,
        typer.Option("--films", help="Comma-separated film ids (default: films with no summary)."),
    ] = None,
    backend: Annotated[
        str, typer.Option(help="extractive (offline) | openai (the gateway, Table 16 prompt).")
    ] = "extractive",
    model: Annotated[str | None, typer.Option(help="Model (openai backend).")] = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summarise every scene of many films, one run per film; a killed run resumes when the
    same command is given again."""
    from data_access.tables.scene_summaries import films_without_summaries
    from pipelines.cli.scale_options import open_executor, progress_bar
    from pipelines.preprocess.summaries_scaled import summarise_films

    handle = open_store(store, mode="write")
    chosen = (
        [f.strip() for f in films.split(",") if f.strip()]
        if films
        else films_without_summaries(handle)
    )
    if not chosen:
        raise fail("no film to summarise (every film with scenes has summaries)")
    runner = open_executor(executor, ray_address)
    try:
        batch = summarise_films(
            handle,
            chosen,
            runner,
            backend,
            {"model": model} if model else None,
            progress_bar("summaries"),
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    finally:
        runner.close()
    summary = {
        "batch_id": batch.batch_id,
        "executor": batch.executor,
        "films": batch.total,
        "done": batch.done,
        "failed": batch.failed,
        "resumed_from": batch.resumed_from,
    }
    typer.echo(json.dumps(summary) if as_json else " ".join(f"{k}={v}" for k, v in summary.items()))
    if batch.failed:
        raise fail(f"{batch.failed} films failed; run the same command again to retry them")
