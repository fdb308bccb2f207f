"""Rollups: small aggregate tables of the current verdicts and MCQ predictions (migration 620),
so the Verdicts page's metrics and agreement sections and the Distributions page's MCQ accuracy
read a few thousand rows instead of resolving `current_claim_verdicts` over 800k verdicts or
scanning 7M predictions on every view.

Rollups are a cache of what the live queries compute, never a source of truth:
- `refresh_rollups` recomputes every rollup table from the live SQL and records the *signature*
  of the store state it saw (row counts of the inputs + a hash of the finished runs);
- `finish_run` (data_access.tables.runs) calls `after_run_finished`, which refreshes when the
finished
  run wrote verdicts, predictions or difficulty, and otherwise only re-stamps a fresh rollup;
- readers call `rollups_fresh` and fall back to the live query when the signature differs (rows
  written by hand, a judge job mid-run, a store from before migration 620) — so a page shows
  the same numbers either way, only slower while stale.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from data_access.rollups.catalogue import refresh_catalogue, refresh_catalogue_for_run
from data_access.rollups.incremental import update_for_run
from data_access.rollups.questions import refresh_question_shape, refresh_question_shape_for_run
from data_access.rollups.sql import CURRENT_VERDICTS, EVERYTHING, ROLLUP_TABLES, rollup_select
from data_access.store import Store

# The inputs the rollups depend on: any insert changes a row count, any run finishing or failing
# changes the finished-runs fingerprint (the current views pick the latest *finished* run).
# Unfiltered counts are table metadata in DuckDB, so the check costs a few ms at paper scale.
_INPUT_TABLES = (
    "claim_verdicts",
    "mcq_predictions",
    "mcq_difficulty",
    "answers",
    "rubric_claims",
    "questions",
    "mcq_questions",
    "settings",
    # the film counts' inputs (rollups_catalogue: current beliefs per film, trees)
    "presence",
    "beliefs",
    "meta_beliefs",
    "plottree_nodes",
    # the question shapes' inputs (rollups_questions: evidence spans over the current scenes,
    # anchor fifths of the film's runtime)
    "question_evidence",
    "scenes",
    "films",
)
_COUNTS_SQL = "SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for t in _INPUT_TABLES)
# the same counts restricted to one run's rows (zone maps skip the other runs' row groups)
_RUN_COUNTS_SQL = "SELECT " + ", ".join(
    f"(SELECT count(*) FROM {t} WHERE run_id = $run)" for t in _INPUT_TABLES
)
_FINISHED_RUNS_SQL = (
    "SELECT count(*), sum(hash(run_id, started_at)) FROM runs WHERE status = 'finished'"
    " AND run_id IS DISTINCT FROM $without"
)


def store_signature(
    cursor: duckdb.DuckDBPyConnection,
    without: tuple[str, tuple[int, ...]] | None = None,
    counts: tuple[int, ...] | None = None,
) -> str:
    """The fingerprint of the rollups' inputs (row counts and finished runs); a few ms.

    `without` = (run id, its row counts per input table) gives the fingerprint the store would
    have without that run's rows and with that run not finished. `counts` are the input
    tables' row counts when the caller has just read them.
    """
    if counts is None:
        counts = cursor.execute(_COUNTS_SQL).fetchone()
    run_id = None
    if without is not None:
        run_id, run_counts = without
        counts = [total - own for total, own in zip(counts, run_counts)]
    finished = cursor.execute(_FINISHED_RUNS_SQL, {"without": run_id}).fetchone()
    return "|".join(str(value) for value in [*counts, *finished])


def _stamped_signature(cursor: duckdb.DuckDBPyConnection) -> str | None:
    row = cursor.execute("SELECT signature FROM rollup_state WHERE name = 'all'").fetchone()
    return row[0] if row else None


def _stamp(cursor: duckdb.DuckDBPyConnection, signature: str) -> None:
    cursor.execute("DELETE FROM rollup_state WHERE name = 'all'")
    cursor.execute("INSERT INTO rollup_state (name, signature) VALUES ('all', ?)", [signature])


def refresh_rollups(cursor: duckdb.DuckDBPyConnection) -> None:
    """Recompute every rollup table from the live queries, inside the caller's transaction."""
    cursor.execute(
        f"CREATE OR REPLACE TEMP TABLE {CURRENT_VERDICTS} AS SELECT * FROM current_claim_verdicts"
    )
    for table in ROLLUP_TABLES:
        cursor.execute(f"DELETE FROM {table}")
        cursor.execute(f"INSERT INTO {table} BY NAME {rollup_select(table, EVERYTHING)}")
    cursor.execute(f"DROP TABLE {CURRENT_VERDICTS}")
    refresh_catalogue(cursor)
    refresh_question_shape(cursor)
    _stamp(cursor, store_signature(cursor))


@dataclass(frozen=True)
class RunRollupState:
    """What `finish_run` learns about a run just before changing its status."""

    run_id: str
    run_rows: tuple[int, ...]  # the run's rows in each of _INPUT_TABLES
    totals: tuple[int, ...]  # every row of each of _INPUT_TABLES (a status change keeps them)
    fresh_without_run: bool  # the rollups held everything but this run (stamp matches)

    @property
    def only_run_rows(self) -> bool:
        """Every rollup input row in the store is this run's."""
        return self.totals == self.run_rows

    @property
    def touched(self) -> set[str]:
        """The input tables the run wrote to."""
        return {table for table, n in zip(_INPUT_TABLES, self.run_rows) if n}


def before_run_finished(cursor: duckdb.DuckDBPyConnection, run_id: str) -> RunRollupState:
    """Whether the rollups are fresh apart from `run_id`, just before its status changes."""
    run_rows = tuple(cursor.execute(_RUN_COUNTS_SQL, {"run": run_id}).fetchone())
    totals = tuple(cursor.execute(_COUNTS_SQL).fetchone())
    # a run without rows here changes nothing the rollups hold: compare the store as it is
    without = (run_id, run_rows) if any(run_rows) else None
    fresh = _stamped_signature(cursor) == store_signature(cursor, without, totals)
    return RunRollupState(run_id, run_rows, totals, fresh)


def after_run_finished(cursor: duckdb.DuckDBPyConnection, state: RunRollupState) -> None:
    """Keep the rollups current once a run has changed status.

    A run that wrote rows the rollups read (verdicts, predictions, difficulty, answers,
    questions, rubrics, MCQs, settings) updates them: incrementally when they held everything
    but this run (only the answers, films and methods it touched are recomputed,
    data_access.rollups.incremental), otherwise by a full refresh. Any other run leaves the
    rollup inputs as they were, so a rollup that was fresh is only re-stamped; a stale one
    stays stale (readers fall back to the live queries).
    """
    if state.touched and state.fresh_without_run:
        update_for_run(cursor, state.run_id, state.touched, state.only_run_rows)
        refresh_catalogue_for_run(cursor, state.run_id, state.touched)
        refresh_question_shape_for_run(cursor, state.run_id, state.touched)
        _stamp(cursor, store_signature(cursor, counts=state.totals))
    elif state.touched:
        refresh_rollups(cursor)
    elif state.fresh_without_run:
        _stamp(cursor, store_signature(cursor, counts=state.totals))


def rollups_fresh(store: Store) -> bool:
    """Whether the rollup tables reflect the store as it is now (readers' switch)."""
    with store.session() as cursor:
        return _stamped_signature(cursor) == store_signature(cursor)


def refresh(store: Store) -> None:
    """Recompute the rollups in one transaction (CLI `storyscope rollups refresh`)."""
    with store.transaction() as cursor:
        refresh_rollups(cursor)


def refresh_if_stale(cursor: duckdb.DuckDBPyConnection) -> bool:
    """Refresh the rollups, in the caller's transaction, when their stamp does not match the
    store (after a schema upgrade: migrations leave rollups stale rather than call this
    module; the store runs this in a transaction of its own, `on_migrations_applied`);
    returns whether it refreshed."""
    if _stamped_signature(cursor) == store_signature(cursor):
        return False
    refresh_rollups(cursor)
    return True
