"""Catalogue rollups: the counts the Overview and Distributions pages show of the
largest tables (MCQs per set, source and topic; answers per setting; verdicts per judge), so
those pages read a few hundred rows at any store size instead of grouping 3.6M MCQs, 2M
answers and 8M verdicts on every view (`data_access/rollups/catalogue.py`).

The tables start empty and the rollup stamp is cleared, as in migration 621: the rollups are
stale until the store's refresh after an upgrade (`rollups.refresh_if_stale`) fills them, and
readers fall back to the live queries meanwhile.
"""

from data_access.store.migrations import migration


@migration(970, "rollup catalogue counts")
def create_catalogue_rollups(connection) -> None:
    connection.execute(
        "CREATE TABLE rollup_mcq_topics (dataset_id VARCHAR, set_name VARCHAR, source VARCHAR,"
        " question_type VARCHAR, story_element VARCHAR, n BIGINT)"
    )
    connection.execute(
        "CREATE TABLE rollup_mcq_sets (set_name VARCHAR, source VARCHAR,"
        " questions BIGINT, videos BIGINT)"
    )
    connection.execute("CREATE TABLE rollup_setting_answers (setting_id VARCHAR, answers BIGINT)")
    connection.execute("CREATE TABLE rollup_judge_verdicts (judge_id VARCHAR, verdicts BIGINT)")
    connection.execute("DELETE FROM rollup_state")
