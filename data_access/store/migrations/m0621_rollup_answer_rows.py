"""rollup_answer_verdicts carries the whole answer_counts row (question, setting, label, type,
film, rubric and core sizes): at paper scale the joins that rebuilt those columns per view
cost more than the verdict counts themselves.

A migration only creates and changes tables: it must replay on an old store whatever the live
rollup SQL has become since. So the widened table starts empty and the rollup stamp is cleared
(the rollups are stale: readers fall back to the live queries); the store refreshes stale
rollups once after an upgrade (`data_access.store.connection`, `rollups.refresh_if_stale`).
"""

from data_access.store.migrations import migration


@migration(621, "rollup answer rows")
def widen_rollup_answer_verdicts(connection) -> None:
    connection.execute("DROP TABLE rollup_answer_verdicts")
    connection.execute(
        "CREATE TABLE rollup_answer_verdicts (judge_id VARCHAR, answer_id VARCHAR,"
        " question_id VARCHAR, setting_id VARCHAR, setting_label VARCHAR, qtype VARCHAR,"
        " film_id VARCHAR, n_claims BIGINT, n_core BIGINT, n_judged BIGINT, n_asserted BIGINT,"
        " n_contradicted BIGINT, n_core_asserted BIGINT)"
    )
    connection.execute("DELETE FROM rollup_state")
