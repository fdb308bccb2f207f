"""Per-answer lexical measures (RL, ClmRL, Cov@.5, Hedge; LF-VideoQA Table 3), written by the
`lexical` judge run next to its claim verdicts. Definitions: docs/JUDGE.md."""

from data_access.store.migrations import migration


@migration(200, "lexical scores")
def create_lexical_scores(connection) -> None:
    connection.execute(
        """CREATE TABLE lexical_scores (
            run_id VARCHAR NOT NULL,
            answer_id VARCHAR NOT NULL,
            rl DOUBLE,            -- ROUGE-L F1, answer vs reference answer
            clm_rl DOUBLE,        -- mean ROUGE-L recall of each rubric claim in the answer
            cov50 DOUBLE,         -- share of claims with ROUGE-L recall >= 0.5
            hedge DOUBLE,         -- share of answer sentences with a hedge cue
            PRIMARY KEY (run_id, answer_id)
        )"""
    )
