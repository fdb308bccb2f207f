"""`storyscope generate-many`: question generation for films on --executor, one unit per batch
of sampled context-sets, the analytics' embeddings and near-duplicates per batch too
(pipelines/qgen/scaled.py; docs/SCALE.md)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import split_list
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption, batch_summary


@app.command("generate-many")
def generate_many(
    films: Annotated[str, typer.Option("--films", help="Comma-separated film ids.")],
    types: Annotated[str | None, typer.Option("--types", help="Question types.")] = None,
    n: Annotated[int, typer.Option("--n", help="Context-sets to sample per film.")] = 20,
    backend: Annotated[str, typer.Option(help="template (offline) or openai.")] = "template",
    model: Annotated[str | None, typer.Option(help="LLM model (openai).")] = None,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    batch_size: Annotated[int, typer.Option(help="Context-sets per work unit.")] = 8,
    budget: Annotated[
        float | None, typer.Option(help="openai: USD budget per film, across all workers.")
    ] = None,
    budget_tokens: Annotated[
        int | None, typer.Option(help="openai: token budget per film, across all workers.")
    ] = None,
    analytics: Annotated[
        bool, typer.Option("--analytics/--no-analytics", help="Near-duplicates, UMAP, ...")
    ] = True,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Generate questions for each film (one run per film); a killed run, or one stopped by
    its budget, resumes when the same command is given again."""
    from pipelines.cli.scale_options import open_executor, progress_bar
    from pipelines.qgen.generate import GenerateOptions, GenerationError
    from pipelines.qgen.scaled import generate_on_executor

    if batch_size < 1:
        raise fail("--batch-size must be at least 1")
    handle = open_store(store, mode="write")
    runner = open_executor(executor, ray_address)
    summaries = []
    try:
        for film in split_list(films):
            options = GenerateOptions(
                film, split_list(types), [], n, backend, seed, analytics, model
            )
            config = None
            if backend == "openai":
                from dataclasses import replace

                limits = {"budget_usd": budget, "budget_tokens": budget_tokens}
                given = {k: v for k, v in limits.items() if v is not None}
                config = replace(options.config(), **given)
            batch = generate_on_executor(
                handle, options, runner, batch_size, config, progress_bar(film)
            )
            summaries.append(_summary(film, batch))
    except (GenerationError, ValueError) as exc:
        raise fail(str(exc)) from None
    finally:
        runner.close()
    for summary in summaries:
        line = json.dumps(summary) if as_json else " ".join(f"{k}={v}" for k, v in summary.items())
        typer.echo(line)
    failed = sum(s["failed"] for s in summaries)
    if failed:
        raise fail(f"{failed} units failed; run the same command again to retry them")


def _summary(film: str, batch) -> dict:
    # the run is named after its batch
    return batch_summary(batch, film_id=film, run_id=batch.batch_id)
