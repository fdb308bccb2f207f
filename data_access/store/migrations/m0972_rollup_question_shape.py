"""Per question its shape (type, center, claims, cited scenes, evidence span, anchor fifth): the
Distributions page's histograms and the Questions page's list sizes. Computed live,
every view resolved the current scenes of every film and grouped every question's evidence and
rubric (0.9 s at ten times the paper); see `data_access/rollups/questions.py`.

An empty table and a cleared stamp, as in migrations 621, 970 and 971: refreshed after the
upgrade (`rollups.refresh_if_stale`), readers use the live queries meanwhile.
"""

from data_access.store.migrations import migration


@migration(972, "rollup question shape")
def create_question_shape_rollup(connection) -> None:
    connection.execute(
        "CREATE TABLE rollup_question_shape (question_id VARCHAR, film_id VARCHAR,"
        " qtype VARCHAR, center VARCHAR, claims BIGINT, core BIGINT, cited_scenes BIGINT,"
        " span_min DOUBLE, anchor_fifth INTEGER)"
    )
    connection.execute("DELETE FROM rollup_state")
