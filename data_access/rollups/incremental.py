"""Incremental rollup update for one run: recompute only the rollup rows the
run could have changed, instead of every rollup table.

Called by `rollups.after_run_finished` only when the rollups held everything but this run (its
stamp matches the store without the run's rows), so the rows outside the touched keys are
already right. Each rollup table is keyed by what its rows aggregate over:

- `rollup_answer_verdicts` by answer: the answers the run judged, imported, or whose question,
  rubric or setting it wrote;
- the agreement rollups by film: the films of those answers (and the no-film group of verdicts
  whose answer is not a stored model answer, when the run moved verdicts into or out of it);
- `rollup_mcq_accuracy` by method: the methods the run predicted with or that predicted on
  MCQs it wrote; a difficulty run re-bins every method's rows, so it recomputes them all.

For each table the touched keys' rows are deleted and recomputed by the same SQL a full
refresh runs (`rollup_sql.rollup_select`), restricted to those keys. Runs are never deleted; a run
that fails or is superseded changes the current views for exactly the keys of its rows, which
are the keys recomputed here. `tests/data_access/rollups/test_rollups_incremental.py` checks the
result equals a
full refresh.
"""

from __future__ import annotations

import duckdb

from data_access.rollups.sql import (
    CURRENT_VERDICTS,
    ROLLUP_TABLES,
    rollup_select,
    scoped_current_verdicts,
)

_ANSWER_INPUTS = {"claim_verdicts", "answers", "rubric_claims", "questions", "settings"}

# answers whose rollup_answer_verdicts rows (and film-level agreement rows) the run can change
_TOUCHED_ANSWERS = """
CREATE OR REPLACE TEMP TABLE _rollup_answers AS
SELECT answer_id FROM claim_verdicts WHERE run_id = $run
UNION SELECT answer_id FROM answers WHERE run_id = $run
UNION SELECT answer_id FROM answers WHERE question_id IN (
    SELECT question_id FROM rubric_claims WHERE run_id = $run
    UNION SELECT question_id FROM questions WHERE run_id = $run)
UNION SELECT answer_id FROM answers WHERE setting_id IN (
    SELECT setting_id FROM settings WHERE run_id = $run)
"""

# the films of those answers; NULL stands for verdicts whose answer has no stored film
_TOUCHED_FILMS = """
CREATE OR REPLACE TEMP TABLE _rollup_films AS
SELECT DISTINCT q.film_id FROM _rollup_answers t LEFT JOIN answers a USING (answer_id)
LEFT JOIN questions q ON q.question_id = a.question_id
"""

# The no-film group changes when the run wrote no-film verdicts (caught above: NULL is then in
# _rollup_films), or when it gave a film to answers other runs had judged before.
_NO_FILM_GAINED_FILM = """
SELECT EXISTS (
    SELECT 1 FROM claim_verdicts v
    WHERE v.run_id <> $run AND v.answer_id IN (
        SELECT answer_id FROM answers WHERE run_id = $run
        UNION SELECT answer_id FROM answers WHERE question_id IN (
            SELECT question_id FROM questions WHERE run_id = $run)))
"""

# Every answer whose verdicts the film-level rollups will re-read: the touched answers, the
# answers of the touched films and, when the no-film group is recomputed, the verdicts' answers
# that resolve to no film.
_SCOPE_ANSWERS = """
CREATE OR REPLACE TEMP TABLE _rollup_scope_answers AS
SELECT answer_id FROM _rollup_answers
UNION SELECT a.answer_id FROM answers a JOIN questions q ON q.question_id = a.question_id
    WHERE q.film_id IN (SELECT film_id FROM _rollup_films)
"""
_NO_FILM_ANSWERS = """
INSERT INTO _rollup_scope_answers
SELECT DISTINCT v.answer_id FROM claim_verdicts v LEFT JOIN answers a USING (answer_id)
LEFT JOIN questions q ON q.question_id = a.question_id WHERE q.film_id IS NULL
"""

# the current verdicts of the scoped answers only (rollup_sql.scoped_current_verdicts): resolving
# every verdict of the store would make a small batch cost as much as the store
_SCOPED_CURRENT_VERDICTS = f"""
CREATE OR REPLACE TEMP TABLE {CURRENT_VERDICTS} AS
{scoped_current_verdicts("answer_id IN (SELECT answer_id FROM _rollup_scope_answers)")}
"""

# `run_id <> $run` lets zone maps skip the run's own row groups (its methods are in already)
_TOUCHED_METHODS = """
CREATE OR REPLACE TEMP TABLE _rollup_methods AS
SELECT DISTINCT method FROM mcq_predictions WHERE run_id = $run
UNION SELECT DISTINCT method FROM mcq_predictions WHERE run_id <> $run AND mcq_id IN (
    SELECT mcq_id FROM mcq_questions WHERE run_id = $run)
"""

_IN_ANSWERS = "{column} IN (SELECT answer_id FROM _rollup_answers)"
_IN_FILMS = (
    "({column} IN (SELECT film_id FROM _rollup_films WHERE film_id IS NOT NULL)"
    " OR ({column} IS NULL AND {no_film}))"
)
_IN_METHODS = "{column} IN (SELECT method FROM _rollup_methods)"


def _replace_rows(
    cursor: duckdb.DuckDBPyConnection, table: str, key_filter: str, scope: dict[str, str]
) -> None:
    """Delete `table`'s rows matching `key_filter` and insert them recomputed within `scope`."""
    cursor.execute(f"DELETE FROM {table} WHERE {key_filter}")
    cursor.execute(f"INSERT INTO {table} BY NAME {rollup_select(table, scope)}")


def _update_answer_rollups(cursor: duckdb.DuckDBPyConnection, run_id: str) -> None:
    params = {"run": run_id}
    cursor.execute(_TOUCHED_ANSWERS, params)
    cursor.execute(_TOUCHED_FILMS)
    no_film = (
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM _rollup_films WHERE film_id IS NULL)"
        ).fetchone()[0]
        or cursor.execute(_NO_FILM_GAINED_FILM, params).fetchone()[0]
    )
    no_film_sql = "TRUE" if no_film else "FALSE"
    cursor.execute(_SCOPE_ANSWERS)
    if no_film:
        cursor.execute(_NO_FILM_ANSWERS)
    cursor.execute(_SCOPED_CURRENT_VERDICTS)
    _replace_rows(
        cursor,
        "rollup_answer_verdicts",
        _IN_ANSWERS.format(column="answer_id"),
        {"answers": _IN_ANSWERS.format(column="v.answer_id"), "verdicts": CURRENT_VERDICTS},
    )
    films = _IN_FILMS.format(column="q.film_id", no_film=no_film_sql)
    for table in ("rollup_agreement_confusions", "rollup_agreement_patterns"):
        _replace_rows(
            cursor,
            table,
            _IN_FILMS.format(column="film_id", no_film=no_film_sql),
            {"films": films, "verdicts": CURRENT_VERDICTS},
        )
    for temp in ("_rollup_answers", "_rollup_films", "_rollup_scope_answers", CURRENT_VERDICTS):
        cursor.execute(f"DROP TABLE {temp}")


def _update_mcq_rollup(cursor: duckdb.DuckDBPyConnection, run_id: str, every_method: bool) -> None:
    if every_method:
        _replace_rows(cursor, "rollup_mcq_accuracy", "TRUE", {"methods": "TRUE"})
        return
    cursor.execute(_TOUCHED_METHODS, {"run": run_id})
    _replace_rows(
        cursor,
        "rollup_mcq_accuracy",
        _IN_METHODS.format(column="method"),
        {"methods": _IN_METHODS.format(column="p.method")},
    )
    cursor.execute("DROP TABLE _rollup_methods")


def _is_finished(cursor: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    status = cursor.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]).fetchone()
    return status is not None and status[0] == "finished"


def _fill_from_only_run(cursor: duckdb.DuckDBPyConnection) -> None:
    """Every rollup from scratch when all of its inputs are one finished run's rows (a first
    import into a fresh store): every key is touched, so finding the touched keys is wasted
    work, and the run's verdicts ARE the current verdicts (current_claim_verdicts picks, per
    judge, answer and claim, the rows of the latest finished run, and there is only one), so
    resolving them (a GROUP BY over every verdict, ~40% of the verdict rollups' cost) is
    skipped too, as is joining every prediction to its method's latest run."""
    scope = {
        "answers": "TRUE",
        "films": "TRUE",
        "methods": "TRUE",
        "verdicts": "claim_verdicts",
        "predictions": "mcq_predictions p",  # likewise each method's latest run: the one run
    }
    # two judges' verdicts on a claim make a confusion: with one judge there is none to count
    # (the self-join over every verdict would find nothing)
    one_judge = cursor.execute(
        "SELECT count(DISTINCT judge_id) < 2 FROM claim_verdicts"
    ).fetchone()[0]
    for table in ROLLUP_TABLES:
        if table == "rollup_agreement_confusions" and one_judge:
            cursor.execute(f"DELETE FROM {table}")
        else:
            _replace_rows(cursor, table, "TRUE", scope)


def update_for_run(
    cursor: duckdb.DuckDBPyConnection, run_id: str, touched: set[str], only_run_rows: bool = False
) -> None:
    """Bring the rollups up to date with `run_id`'s rows, inside the caller's transaction.

    Args:
        cursor: the cursor of the transaction that changes the run's status.
        run_id: the run whose status just changed.
        touched: the rollup input tables the run wrote rows to.
        only_run_rows: every row of the rollup inputs is this run's.
    """
    if only_run_rows and _is_finished(cursor, run_id):
        _fill_from_only_run(cursor)
        return
    if touched & _ANSWER_INPUTS:
        _update_answer_rollups(cursor, run_id)
    if "mcq_difficulty" in touched:
        _update_mcq_rollup(cursor, run_id, every_method=True)
    elif touched & {"mcq_predictions", "mcq_questions"}:
        _update_mcq_rollup(cursor, run_id, every_method=False)
