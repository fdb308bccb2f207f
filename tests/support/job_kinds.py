"""Job kinds the job tests run (`pipelines.jobs` imports a kind by "module:function", in the
job's own process, so they live here, at a path that does not move with the test files)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.interrupts import LONG_QUERY


def long_query_job(ctx) -> None:
    """A job kind: one long DuckDB statement inside a batch transaction (a judge's flush)."""
    with ctx.store.transaction() as cursor:
        print("inside", flush=True)
        cursor.execute(LONG_QUERY).fetchall()


def interrupted_job(ctx) -> None:
    raise RuntimeError("Query interrupted")


def counted_job(ctx) -> None:
    """A job kind for these tests: appends a line to `marker` per execution, after `sleep_s`."""
    time.sleep(ctx.params.get("sleep_s", 0))
    with Path(ctx.params["marker"]).open("a") as handle:
        handle.write("ran\n")
