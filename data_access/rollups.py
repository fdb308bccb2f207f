"""Rollups: small aggregate tables of the current verdicts and MCQ predictions (migration 620),
so the Verdicts page's metrics and agreement sections and the Distributions page's MCQ accuracy
read a few thousand rows instead of resolving `current_claim_verdicts` over 800k verdicts or
scanning 7M predictions on every view (issue 8, "Speed").

Rollups are a cache of what the live queries compute, never a source of truth:
- `refresh_rollups` recomputes every rollup table from the live SQL and records the *signature*
  of the store state it saw (row counts of the inputs + a hash of the finished runs);
- `finish_run` (data_access.runs) calls `after_run_finished`, which refreshes when the finished
  run wrote verdicts, predictions or difficulty, and otherwise only re-stamps a fresh rollup;
- readers call `rollups_fresh` and fall back to the live query when the signature differs (rows
  written by hand, a judge job mid-run, a store from before migration 620) — so a page shows
  the same numbers either way, only slower while stale.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

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

# Per (judge, answer): the rows of views_verdicts.answer_counts (the inputs of LF-VideoQA Eq. 1
# with the answer's question, setting, type and film) for every judge, so the page's slice is a
# filter on one table instead of resolving the current verdicts.
_ANSWER_VERDICTS = """
    WITH rubric AS (
        SELECT question_id, count(*) AS n_claims, count(*) FILTER (role = 'core') AS n_core
        FROM rubric_claims GROUP BY 1
    ),
    judged AS (
        SELECT v.judge_id, v.answer_id, count(*) AS n_judged,
               count(*) FILTER (v.verdict = 'asserted') AS n_asserted,
               count(*) FILTER (v.verdict = 'contradicted') AS n_contradicted,
               count(*) FILTER (v.verdict = 'asserted' AND c.role = 'core') AS n_core_asserted
        FROM {verdicts} v JOIN rubric_claims c USING (claim_id)
        WHERE {answers}
        GROUP BY v.judge_id, v.answer_id
    )
    SELECT j.judge_id, a.answer_id, a.question_id, a.setting_id, coalesce(s.label, a.setting_id) AS
        setting_label,
           q.qtype, q.film_id, r.n_claims, r.n_core, j.n_judged, j.n_asserted, j.n_contradicted,
               j.n_core_asserted
    FROM judged j JOIN answers a USING (answer_id) JOIN questions q ON q.question_id = a.question_id
    JOIN rubric r ON r.question_id = a.question_id LEFT JOIN settings s ON s.setting_id =
        a.setting_id
"""

# Current verdicts with the film of their answer (NULL when the answer is not a stored model
# answer: such items count only in the all-films slice, as in the live queries).
_FILM_VERDICTS = """
    v AS (SELECT v.answer_id, v.claim_id, v.judge_id, v.verdict, q.film_id
          FROM {verdicts} v LEFT JOIN answers a USING (answer_id)
          LEFT JOIN questions q ON q.question_id = a.question_id
          WHERE {films})
"""

_CONFUSIONS_BY_FILM = f"""
    WITH {_FILM_VERDICTS}
    SELECT a.film_id, a.judge_id AS judge_a, b.judge_id AS judge_b, a.verdict AS verdict_a,
           b.verdict AS verdict_b, count(*) AS n
    FROM v a JOIN v b ON a.answer_id = b.answer_id AND a.claim_id = b.claim_id AND a.judge_id <
        b.judge_id
    GROUP BY ALL
"""

_PATTERNS_BY_FILM = f"""
    WITH {_FILM_VERDICTS},
    units AS (
        SELECT answer_id, claim_id, any_value(film_id) AS film_id,
               count(*) FILTER (verdict = 'asserted') AS asserted,
               count(*) FILTER (verdict = 'contradicted') AS contradicted,
               count(*) FILTER (verdict = 'omitted') AS omitted,
               count(*) FILTER (verdict NOT IN ('asserted', 'contradicted', 'omitted')) AS other
        FROM v GROUP BY answer_id, claim_id
    )
    SELECT film_id, asserted, contradicted, omitted, other, count(*) AS items FROM units GROUP BY
        ALL
"""

# Per method (its latest finished prediction run, as views_distributions), MCQ set, source,
# topic and current difficulty bin: predictions, scored predictions and correct ones.
_MCQ_ACCURACY = """
    WITH latest AS (
        SELECT p.method, arg_max(p.run_id, r.started_at) AS run_id
        FROM (SELECT DISTINCT method, run_id FROM mcq_predictions) p JOIN runs r USING (run_id)
        WHERE r.status = 'finished' AND {methods} GROUP BY p.method
    )
    SELECT p.method, q.set_name, q.source, q.question_type, q.story_element, d.bin,
           count(*) AS n, count(p.correct) AS n_scored, coalesce(sum(p.correct::INT), 0) AS
               n_correct
    FROM {predictions} JOIN mcq_questions q USING (mcq_id)
    LEFT JOIN current_mcq_difficulty d USING (mcq_id)
    GROUP BY ALL
"""

# table -> (its SQL, the scope it is recomputed by). Each SQL has one scope placeholder
# ({answers}, {films} or {methods}), a predicate that is TRUE for a full refresh and names the
# touched keys for an incremental one (data_access.rollups_incremental), and the verdict ones
# read the current verdicts from {verdicts}.
_TABLES = {
    "rollup_answer_verdicts": (_ANSWER_VERDICTS, "answers"),
    "rollup_agreement_confusions": (_CONFUSIONS_BY_FILM, "films"),
    "rollup_agreement_patterns": (_PATTERNS_BY_FILM, "films"),
    "rollup_mcq_accuracy": (_MCQ_ACCURACY, "methods"),
}
ROLLUP_TABLES = tuple(_TABLES)
# The current verdicts are resolved once per refresh into this temp table (three rollups read
# them; resolving `current_claim_verdicts` is most of each one's cost).
CURRENT_VERDICTS = "_rollup_current_verdicts"
_EVERYTHING = {"answers": "TRUE", "films": "TRUE", "methods": "TRUE", "verdicts": CURRENT_VERDICTS}


# The predictions the MCQ rollup counts: each method's latest finished run. A scope may replace
# it with plain `mcq_predictions p` when one finished run holds every prediction.
LATEST_PREDICTIONS = "mcq_predictions p JOIN latest USING (method, run_id)"


def rollup_select(table: str, scope: dict[str, str]) -> str:
    """The SELECT that computes `table`'s rows, restricted by `scope` (see _TABLES)."""
    select, _ = _TABLES[table]
    return select.format(**{"predictions": LATEST_PREDICTIONS, **scope})


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
    for table in _TABLES:
        cursor.execute(f"DELETE FROM {table}")
        cursor.execute(f"INSERT INTO {table} BY NAME {rollup_select(table, _EVERYTHING)}")
    cursor.execute(f"DROP TABLE {CURRENT_VERDICTS}")
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
    data_access.rollups_incremental), otherwise by a full refresh. Any other run leaves the
    rollup inputs as they were, so a rollup that was fresh is only re-stamped; a stale one
    stays stale (readers fall back to the live queries).
    """
    if state.touched and state.fresh_without_run:
        from data_access.rollups_incremental import update_for_run

        update_for_run(cursor, state.run_id, state.touched, state.only_run_rows)
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
    """Refresh the rollups in one transaction when their stamp does not match the store (after
    a schema upgrade: migrations leave rollups stale rather than call this module); returns
    whether it refreshed."""
    if _stamped_signature(cursor) == store_signature(cursor):
        return False
    cursor.execute("BEGIN TRANSACTION")
    try:
        refresh_rollups(cursor)
    except BaseException:
        cursor.execute("ROLLBACK")
        raise
    cursor.execute("COMMIT")
    return True
