"""Catalogue rollups (migration 970): what the largest tables hold, counted once per write.

The Overview page shows MCQs per set (and their videos), answers per setting and verdicts per
judge; the Distributions page MCQs per topic. Counted live, each view grouped every MCQ (3.6M
at ten times the paper), answer (2M) or verdict (8M), so those pages grew with the store
(benchmarks/bench_store.py). These tables hold the counts: tens to hundreds of rows.

They are recomputed whole (three GROUP BYs: about a second at 10x) whenever the rollups are
refreshed, and when a finished run wrote MCQs, answers or verdicts. Readers read them through
`data_access.rollups.source`, which runs the same SELECTs live while the rollups are stale, so a
page shows the same numbers either way.
"""

from __future__ import annotations

import duckdb

# table -> the SELECT that fills it (the same counts the live queries make)
CATALOGUE_SQL = {
    "rollup_mcq_topics": (
        "SELECT dataset_id, set_name, source, question_type, story_element, count(*) AS n"
        " FROM mcq_questions GROUP BY ALL"
    ),
    "rollup_mcq_sets": (
        "SELECT set_name, source, count(*) AS questions, count(DISTINCT vid) AS videos"
        " FROM mcq_questions GROUP BY ALL"
    ),
    "rollup_setting_answers": (
        "SELECT setting_id, count(*) AS answers FROM answers GROUP BY setting_id"
    ),
    "rollup_judge_verdicts": (
        "SELECT judge_id, count(*) AS verdicts FROM claim_verdicts GROUP BY judge_id"
    ),
    "rollup_run_verdicts": (
        "SELECT run_id, any_value(judge_id) AS judge_id, count(*) AS verdicts"
        " FROM claim_verdicts GROUP BY run_id"
    ),
    "rollup_question_answers": (
        "SELECT q.question_id, coalesce(a.n, 0) AS answers, coalesce(c.n, 0) AS claims"
        " FROM questions q"
        " LEFT JOIN (SELECT question_id, count(*) AS n FROM answers GROUP BY 1) a"
        " USING (question_id)"
        " LEFT JOIN (SELECT question_id, count(*) AS n FROM rubric_claims GROUP BY 1) c"
        " USING (question_id)"
    ),
}
# the rollup inputs (rollups._INPUT_TABLES) whose rows these tables count
CATALOGUE_INPUTS = {"mcq_questions", "answers", "claim_verdicts", "questions", "rubric_claims"}

# Per film: questions, current beliefs (film_view.films_to_explore), a current tree. Resolving
# current beliefs is the costly part, so a run refreshes only the films it wrote rows for.
FILM_INPUTS = {"questions", "presence", "beliefs", "meta_beliefs", "plottree_nodes"}
_FILM_COUNTS = """
    WITH f AS (SELECT film_id FROM films WHERE {films}),
    q AS (SELECT film_id, count(*) AS questions FROM questions
          WHERE film_id IN (SELECT film_id FROM f) GROUP BY 1),
    b AS (SELECT film_id, count(*) AS beliefs FROM current_beliefs
          WHERE film_id IN (SELECT film_id FROM f) GROUP BY 1),
    t AS (SELECT DISTINCT film_id FROM current_plottree_nodes
          WHERE film_id IN (SELECT film_id FROM f))
    SELECT f.film_id, coalesce(q.questions, 0) AS questions, coalesce(b.beliefs, 0) AS beliefs,
           t.film_id IS NOT NULL AS has_tree
    FROM f LEFT JOIN q USING (film_id) LEFT JOIN b USING (film_id) LEFT JOIN t USING (film_id)
"""
FILM_COUNTS_LIVE_SQL = _FILM_COUNTS.format(films="TRUE")
_RUN_FILMS = " UNION ".join(
    f"SELECT film_id FROM {table} WHERE run_id = $run" for table in sorted(FILM_INPUTS)
)


def refresh_catalogue(cursor: duckdb.DuckDBPyConnection) -> None:
    """Recompute every catalogue table inside the caller's transaction."""
    for table, select in CATALOGUE_SQL.items():
        cursor.execute(f"DELETE FROM {table}")
        cursor.execute(f"INSERT INTO {table} BY NAME {select}")
    cursor.execute("DELETE FROM rollup_film_counts")
    cursor.execute(f"INSERT INTO rollup_film_counts BY NAME {_FILM_COUNTS.format(films='TRUE')}")


def refresh_catalogue_for_run(
    cursor: duckdb.DuckDBPyConnection, run_id: str, touched: set[str]
) -> None:
    """After `run_id` changed status: the count tables when it wrote what they count, and the
    film counts of the films it wrote questions, beliefs or tree nodes for."""
    if touched & CATALOGUE_INPUTS:
        for table, select in CATALOGUE_SQL.items():
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(f"INSERT INTO {table} BY NAME {select}")
    if touched & FILM_INPUTS:
        films = f"film_id IN ({_RUN_FILMS})"
        cursor.execute(f"DELETE FROM rollup_film_counts WHERE {films}", {"run": run_id})
        cursor.execute(
            f"INSERT INTO rollup_film_counts BY NAME {_FILM_COUNTS.format(films=films)}",
            {"run": run_id},
        )
