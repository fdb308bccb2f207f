"""Human review: question decisions, question and claim revisions, error tags.

Human claim verdicts need no table of their own: they are `claim_verdicts` rows of a judge
`human:<reviewer>` under a run of step `review.verdicts`, so every view of verdicts (agreement,
run diff, metrics) takes them in. The tables here are append-only like every derived table:
each save is a run, and "current" means the latest run per key (views below).
"""

from data_access.store.migrations import migration


@migration(800, "human review tables")
def create_review_tables(connection) -> None:
    connection.execute(
        """CREATE TABLE question_reviews (
            run_id VARCHAR NOT NULL,
            question_id VARCHAR NOT NULL,
            reviewer VARCHAR NOT NULL,
            decision VARCHAR NOT NULL,        -- accept | reject | edit
            reasons VARCHAR[],                -- reject reasons from the fixed list
            note VARCHAR,                     -- free text
            status_before VARCHAR,
            status_after VARCHAR NOT NULL,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
    connection.execute(
        """CREATE TABLE question_revisions (
            run_id VARCHAR NOT NULL,
            question_id VARCHAR NOT NULL,
            revision INTEGER NOT NULL,        -- 1, 2, ...; revision 0 is the row in `questions`
            text VARCHAR NOT NULL,
            gold VARCHAR,
            reviewer VARCHAR NOT NULL,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
    connection.execute(
        """CREATE TABLE claim_revisions (
            run_id VARCHAR NOT NULL,
            claim_id VARCHAR NOT NULL,
            question_id VARCHAR NOT NULL,
            revision INTEGER NOT NULL,        -- 1, 2, ...; revision 0 is the row in `rubric_claims`
            role VARCHAR NOT NULL,
            text VARCHAR NOT NULL,
            reviewer VARCHAR NOT NULL,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
    connection.execute(
        """CREATE TABLE answer_tags (
            run_id VARCHAR NOT NULL,
            answer_id VARCHAR NOT NULL,
            reviewer VARCHAR NOT NULL,
            tags VARCHAR[] NOT NULL,          -- the reviewer's whole tag set after this save
            note VARCHAR,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
    # Latest save per key among finished runs; several reviewers keep their own sets.
    connection.execute(
        """CREATE OR REPLACE VIEW current_answer_tags AS
        SELECT t.* FROM answer_tags t JOIN runs r USING (run_id) WHERE r.status = 'finished'
        QUALIFY row_number() OVER (PARTITION BY t.answer_id, t.reviewer
                                   ORDER BY t.created_at DESC, r.started_at DESC) = 1"""
    )
    connection.execute(
        """CREATE OR REPLACE VIEW current_question_reviews AS
        SELECT q.* FROM question_reviews q JOIN runs r USING (run_id) WHERE r.status = 'finished'
        QUALIFY row_number() OVER (PARTITION BY q.question_id
                                   ORDER BY q.created_at DESC, r.started_at DESC) = 1"""
    )
    connection.execute(
        """CREATE OR REPLACE VIEW current_question_revisions AS
        SELECT v.* FROM question_revisions v JOIN runs r USING (run_id) WHERE r.status = 'finished'
        QUALIFY row_number() OVER (PARTITION BY v.question_id ORDER BY v.revision DESC) = 1"""
    )
    connection.execute(
        """CREATE OR REPLACE VIEW current_claim_revisions AS
        SELECT v.* FROM claim_revisions v JOIN runs r USING (run_id) WHERE r.status = 'finished'
        QUALIFY row_number() OVER (PARTITION BY v.claim_id ORDER BY v.revision DESC) = 1"""
    )
