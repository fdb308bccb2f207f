"""rollup_answer_verdicts carries the whole answer_counts row (question, setting, label, type,
film, rubric and core sizes): at paper scale the joins that rebuilt those columns per view
cost more than the verdict counts themselves. A store that already holds data is rolled up
here once, so its pages are fast from the first open."""

from data_access.migrations import migration


@migration(621, "rollup answer rows")
def widen_rollup_answer_verdicts(connection) -> None:
    connection.execute("DROP TABLE rollup_answer_verdicts")
    connection.execute(
        "CREATE TABLE rollup_answer_verdicts (judge_id VARCHAR, answer_id VARCHAR, question_id VARCHAR,"
        " setting_id VARCHAR, setting_label VARCHAR, qtype VARCHAR, film_id VARCHAR, n_claims BIGINT,"
        " n_core BIGINT, n_judged BIGINT, n_asserted BIGINT, n_contradicted BIGINT, n_core_asserted BIGINT)"
    )
    from data_access.rollups import refresh_rollups

    refresh_rollups(connection)
