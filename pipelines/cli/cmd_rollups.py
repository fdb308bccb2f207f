"""`storyscope rollups`: recompute the rollup tables (data_access.rollups.freshness) by hand.

Runs that write verdicts or predictions refresh the rollups when they finish; this command is
for rows written some other way (a script, an interrupted job), after which the pages fall back
to the slower live queries until the next refresh.
"""

from __future__ import annotations

import json
import time

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, open_store


@app.command()
def rollups(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Recompute the pages' aggregate tables (verdict counts, agreement, MCQ accuracy)."""
    from data_access.rollups import refresh, rollups_fresh

    handle = open_store(store, mode="write")
    fresh_before = rollups_fresh(handle)
    start = time.perf_counter()
    refresh(handle)
    result = {
        "store": str(handle.path),
        "fresh_before": fresh_before,
        "seconds": round(time.perf_counter() - start, 2),
    }
    if as_json:
        typer.echo(json.dumps(result))
    else:
        typer.echo(
            f"{handle.path}: rollups refreshed in {result['seconds']} s"
            f" ({'were' if fresh_before else 'were not'} current before)"
        )
