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

import duckdb

from data_access.store import Store

# The inputs the rollups depend on: any insert changes a row count, any run finishing or failing
# changes the finished-runs fingerprint (the current views pick the latest *finished* run).
# Unfiltered counts are table metadata in DuckDB, so the check costs a few ms at paper scale.
_COUNTS_SQL = """
SELECT (SELECT count(*) FROM claim_verdicts), (SELECT count(*) FROM mcq_predictions),
       (SELECT count(*) FROM mcq_difficulty), (SELECT count(*) FROM answers),
       (SELECT count(*) FROM rubric_claims), (SELECT count(*) FROM questions),
       (SELECT count(*) FROM mcq_questions), (SELECT count(*) FROM settings)
"""
_FINISHED_RUNS_SQL = (
    "SELECT count(*), sum(hash(run_id, started_at)) FROM runs WHERE status = 'finished'"
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
        FROM current_claim_verdicts v JOIN rubric_claims c USING (claim_id)
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
          FROM current_claim_verdicts v LEFT JOIN answers a USING (answer_id)
          LEFT JOIN questions q ON q.question_id = a.question_id)
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
        WHERE r.status = 'finished' GROUP BY p.method
    )
    SELECT p.method, q.set_name, q.source, q.question_type, q.story_element, d.bin,
           count(*) AS n, count(p.correct) AS n_scored, coalesce(sum(p.correct::INT), 0) AS
               n_correct
    FROM mcq_predictions p JOIN latest USING (method, run_id) JOIN mcq_questions q USING (mcq_id)
    LEFT JOIN current_mcq_difficulty d USING (mcq_id)
    GROUP BY ALL
"""

_TABLES = {
    "rollup_answer_verdicts": _ANSWER_VERDICTS,
    "rollup_agreement_confusions": _CONFUSIONS_BY_FILM,
    "rollup_agreement_patterns": _PATTERNS_BY_FILM,
    "rollup_mcq_accuracy": _MCQ_ACCURACY,
}


def store_signature(cursor: duckdb.DuckDBPyConnection) -> str:
    """The fingerprint of the rollups' inputs (row counts and finished runs); a few ms."""
    values = [
        *cursor.execute(_COUNTS_SQL).fetchone(),
        *cursor.execute(_FINISHED_RUNS_SQL).fetchone(),
    ]
    return "|".join(str(value) for value in values)


def _stamped_signature(cursor: duckdb.DuckDBPyConnection) -> str | None:
    row = cursor.execute("SELECT signature FROM rollup_state WHERE name = 'all'").fetchone()
    return row[0] if row else None


def _stamp(cursor: duckdb.DuckDBPyConnection, signature: str) -> None:
    cursor.execute("DELETE FROM rollup_state WHERE name = 'all'")
    cursor.execute("INSERT INTO rollup_state (name, signature) VALUES ('all', ?)", [signature])


def refresh_rollups(cursor: duckdb.DuckDBPyConnection) -> None:
    """Recompute every rollup table from the live queries, inside the caller's transaction."""
    for table, select in _TABLES.items():
        cursor.execute(f"DELETE FROM {table}")
        cursor.execute(f"INSERT INTO {table} BY NAME {select}")
    _stamp(cursor, store_signature(cursor))


# every table a rollup reads; a run that wrote to one of them changes what the rollups hold
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


def _run_feeds_rollups(cursor: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    exists = " OR ".join(
        f"EXISTS (SELECT 1 FROM {table} WHERE run_id = ?)" for table in _INPUT_TABLES
    )
    return bool(cursor.execute(f"SELECT {exists}", [run_id] * len(_INPUT_TABLES)).fetchone()[0])


def before_run_finished(cursor: duckdb.DuckDBPyConnection) -> bool:
    """Whether the rollups are fresh just before a run's status changes (see after_run_finished)."""
    return _stamped_signature(cursor) == store_signature(cursor)


def after_run_finished(cursor: duckdb.DuckDBPyConnection, run_id: str, was_fresh: bool) -> None:
    """Keep the rollups current once `run_id` has changed status.

    A run that wrote rows the rollups read (verdicts, predictions, difficulty, answers,
    questions, rubrics, MCQs, settings) triggers a full refresh (seconds at
    paper scale, paid once by the writer instead of by every page view). Any other run leaves
    the rollup inputs as they were, so a rollup that was fresh is only re-stamped; a stale one
    stays stale (readers fall back to the live queries).
    """
    if _run_feeds_rollups(cursor, run_id):
        refresh_rollups(cursor)
    elif was_fresh:
        _stamp(cursor, store_signature(cursor))


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
