"""claim_verdicts without a primary key.

The m0001 key (run_id, answer_id, claim_id) was wrong twice over: one import run could not
hold two judges' verdicts on the same claim (human + three LLM judges, App. G / FABLES), and an
ART index made paper-scale bulk loads 3–5x slower. Uniqueness of (run, judge, answer, claim) is
checked by the importer's SQL checks and by the judge job, which skips answers already judged
in its run (data_access.tables.judging).
"""

from data_access.store.migrations import migration


@migration(30, "claim_verdicts without primary key")
def unkey_claim_verdicts(connection) -> None:
    connection.execute(
        """CREATE TABLE claim_verdicts_unkeyed (
            run_id VARCHAR NOT NULL,
            judge_id VARCHAR NOT NULL,
            answer_id VARCHAR NOT NULL,
            claim_id VARCHAR NOT NULL,
            verdict VARCHAR NOT NULL,
            rationale VARCHAR
        )"""
    )
    connection.execute(
        "INSERT INTO claim_verdicts_unkeyed SELECT run_id, judge_id, answer_id, claim_id,"
        " verdict, rationale FROM claim_verdicts"
    )
    connection.execute("DROP TABLE claim_verdicts")
    connection.execute("ALTER TABLE claim_verdicts_unkeyed RENAME TO claim_verdicts")
