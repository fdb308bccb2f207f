"""`storyscope beliefs annotate-many`: belief records for many films on --executor, with the
rules, the asymmetry tracker or the LLM stages (one unit per film and scene range;
docs/SCALE.md)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.beliefs.backends import backend_names, backends_help, belief_backend
from pipelines.cli.app import JsonOption, StoreOption, fail, open_store
from pipelines.cli.cmd_beliefs import beliefs_app
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption, batch_summary


@beliefs_app.command("annotate-many")
def annotate_many(
    films: Annotated[
        str | None, typer.Option("--films", help="Comma-separated film ids (default: all).")
    ] = None,
    scenes_per_unit: Annotated[
        int | None,
        typer.Option("--scenes-per-unit", help="Scenes per work unit (default: a whole film)."),
    ] = None,
    backend: Annotated[str, typer.Option(help=backends_help())] = "rules",
    budget: Annotated[
        float | None,
        typer.Option(help="openai: USD budget for the whole batch, across all workers."),
    ] = None,
    budget_tokens: Annotated[
        int | None, typer.Option(help="openai: token budget for the whole batch.")
    ] = None,
    coverage: Annotated[str, typer.Option(help="openai: paper | present.")] = "paper",
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Belief records for many films; a killed run (or one stopped by its budget) resumes
    when the same command is given again."""
    from data_access.tables.belief_records import films_with_script_lines
    from pipelines.beliefs.backend_io import AnnotateError
    from pipelines.beliefs.scaled import annotate_films
    from pipelines.cli.scale_options import open_executor, progress_bar

    if scenes_per_unit is not None and scenes_per_unit < 1:
        raise fail("--scenes-per-unit must be at least 1")
    handle = open_store(store, mode="write")
    chosen = (
        [f.strip() for f in films.split(",") if f.strip()]
        if films
        else films_with_script_lines(handle)
    )
    if not chosen:
        raise fail("no film with script lines in the store; ingest a screenplay first")
    found = belief_backend(backend)
    if found is None:
        raise fail(f"--backend {backend!r}: expected one of {', '.join(backend_names())}")
    runner = open_executor(executor, ray_address)
    try:
        if found.offline:
            batch = annotate_films(
                handle, chosen, runner, scenes_per_unit, progress_bar("beliefs"), backend
            )
        else:
            from pipelines.llm import load_config

            config = load_config({"budget_usd": budget, "budget_tokens": budget_tokens})
            annotate_films_llm = found.many_function()
            batch = annotate_films_llm(
                handle, chosen, runner, config, scenes_per_unit, coverage, progress_bar("beliefs")
            )
    except (AnnotateError, ValueError) as exc:
        raise fail(str(exc)) from None
    finally:
        runner.close()
    summary = batch_summary(batch, batch_id=batch.batch_id)
    typer.echo(json.dumps(summary) if as_json else " ".join(f"{k}={v}" for k, v in summary.items()))
    if batch.failed:
        raise fail(f"{batch.failed} units failed; run the same command again to retry them")
