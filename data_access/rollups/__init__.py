"""Rollups: small aggregate tables kept beside the big ones, so pages read what they show
rather than everything stored.

- `sql`: what each rollup table holds and the scope it is recomputed by (one place for both
  refresh paths).
- `freshness`: the freshness stamp, the full refresh, and the hooks around a finished run.
- `incremental`: recompute only the rows one run could have changed.
- `catalogue`: per-set and per-film counts of the largest tables, counted once per write.
- `questions`: one row per question of what the Distributions and Questions pages draw.
- `source`: what a reader reads a rollup FROM: the table while fresh, its one SELECT live
  otherwise (every reader goes through it, so a page never holds a second copy of the SQL).

Public names (`from data_access import rollups`, then `rollups.refresh(store)`): the
freshness module's; the rest by module.
"""

from data_access.rollups.freshness import (
    after_run_finished,
    before_run_finished,
    refresh,
    refresh_if_stale,
    refresh_rollups,
    rollups_fresh,
    store_signature,
)

__all__ = [
    "after_run_finished",
    "before_run_finished",
    "refresh",
    "refresh_if_stale",
    "refresh_rollups",
    "rollups_fresh",
    "store_signature",
]
