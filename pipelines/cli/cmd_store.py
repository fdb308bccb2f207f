"""Store commands: `storyscope stats`, `storyscope migrate`."""

from __future__ import annotations

import json

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, open_store


@app.command()
def stats(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Row counts per table and per source / kind."""
    from data_access.queries.stats import store_stats

    result = store_stats(open_store(store, mode="read"))
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    typer.echo(f"store: {result['store']}")
    for name, n in result["tables"].items():
        if n:
            typer.echo(f"  {name:<20} {n:>10,}")
    for key in ("mcq_by_source", "films_by_kind", "questions_by_type", "runs_by_step"):
        if result[key]:
            parts = ", ".join(f"{k} {v:,}" for k, v in result[key].items())
            typer.echo(f"{key}: {parts}")


@app.command()
def migrate(store: StoreOption = None) -> None:
    """Create the store or bring its schema up to date."""
    from data_access.store.migrations import all_migrations

    handle = open_store(store, mode="create")
    with handle.session():
        pass
    typer.echo(f"{handle.path}: schema at migration {all_migrations()[-1].number}")
