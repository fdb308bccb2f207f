"""Per film, and for all films, the questions per value of each measure the Distributions page
counts (type, claims, cited scenes, anchor fifth) and each film's distinct centers:
counted from the question-shape rollup, each view grouped one row per question (63k at ten
times the paper) where it now reads a few dozen rows. See `data_access/rollups/questions.py`.

An empty table and a cleared stamp, as in migrations 621 and 970-972: refreshed after the
upgrade (`rollups.refresh_if_stale`), readers use the live queries meanwhile.
"""

from data_access.store.migrations import migration


@migration(973, "rollup question counts")
def create_question_counts_rollup(connection) -> None:
    connection.execute(
        "CREATE TABLE rollup_question_counts (film_id VARCHAR, measure VARCHAR, value VARCHAR,"
        " n BIGINT)"
    )
    connection.execute("DELETE FROM rollup_state")
