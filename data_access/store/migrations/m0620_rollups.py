"""Rollup tables (data_access.rollups.freshness): per-answer verdict counts, judge-agreement confusions
and
count patterns per film, MCQ accuracy per method × set × source × topic × difficulty bin, and
the signature of the store state they were computed from."""

from data_access.store.migrations import migration


@migration(620, "rollups")
def create_rollups(connection) -> None:
    connection.execute(
        "CREATE TABLE rollup_state (name VARCHAR PRIMARY KEY, signature VARCHAR NOT NULL,"
        " refreshed_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
    )
    connection.execute(
        "CREATE TABLE rollup_answer_verdicts (judge_id VARCHAR, answer_id VARCHAR, n_judged BIGINT,"
        " n_asserted BIGINT, n_contradicted BIGINT, n_core_asserted BIGINT)"
    )
    connection.execute(
        "CREATE TABLE rollup_agreement_confusions (film_id VARCHAR, judge_a VARCHAR, judge_b VARCHAR,"
        " verdict_a VARCHAR, verdict_b VARCHAR, n BIGINT)"
    )
    connection.execute(
        "CREATE TABLE rollup_agreement_patterns (film_id VARCHAR, asserted BIGINT,"
        " contradicted BIGINT, omitted BIGINT, other BIGINT, items BIGINT)"
    )
    connection.execute(
        "CREATE TABLE rollup_mcq_accuracy (method VARCHAR, set_name VARCHAR, source VARCHAR,"
        " question_type VARCHAR, story_element VARCHAR, bin INTEGER, n BIGINT, n_scored BIGINT,"
        " n_correct BIGINT)"
    )
    # the first refresh is migration 621's, once rollup_answer_verdicts has its final columns
