"""More catalogue rollups: per film its questions, current beliefs and whether it has
a tree (the Overview's "films to explore": resolving every film's current beliefs cost 10 s at
ten times the paper); per run its verdicts (the Verdicts page's run picker); per question its
answers and rubric claims (its question picker). See `data_access/rollups/catalogue.py`.

Empty tables and a cleared stamp, as in migrations 621 and 970: refreshed after the upgrade.
"""

from data_access.store.migrations import migration


@migration(971, "rollup film, run and question counts")
def create_count_rollups(connection) -> None:
    connection.execute(
        "CREATE TABLE rollup_film_counts (film_id VARCHAR, questions BIGINT, beliefs BIGINT,"
        " has_tree BOOLEAN)"
    )
    connection.execute(
        "CREATE TABLE rollup_run_verdicts (run_id VARCHAR, judge_id VARCHAR, verdicts BIGINT)"
    )
    connection.execute(
        "CREATE TABLE rollup_question_answers (question_id VARCHAR, answers BIGINT, claims BIGINT)"
    )
    connection.execute("DELETE FROM rollup_state")
