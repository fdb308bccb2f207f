"""Question generation and sanity checks (LF-VideoQA §3.2, App. F): what the core schema lacks.

Context-sets, questions and rubric claims already have tables (m0001). This migration adds the
per-run records of the generation stages and of the checks and analytics the Question Lab page
reads: every row names the run that produced it, and runs append (a re-check of the same
questions is a new run, so two check versions can be compared).
"""

from data_access.store.migrations import migration

QGEN_TABLES = [
    # One row per stage call of a generation run: the parsed output or the raw failed reply.
    """CREATE TABLE qgen_stage_outputs (
        run_id VARCHAR NOT NULL,
        context_set_id VARCHAR NOT NULL,
        question_id VARCHAR,
        stage INTEGER NOT NULL,           -- 1 question, 2 gold + rubric, 3 verification, 4 gold self-check
        status VARCHAR NOT NULL,          -- ok | thin | malformed | failed
        backend VARCHAR NOT NULL,         -- template | openai
        payload JSON,
        raw_reply VARCHAR,
        PRIMARY KEY (run_id, context_set_id, stage)
    )""",
    # Final status of every candidate a generation run wrote, with the rule that retired it.
    """CREATE TABLE qgen_outcomes (
        run_id VARCHAR NOT NULL,
        question_id VARCHAR NOT NULL,
        context_set_id VARCHAR NOT NULL,
        final_status VARCHAR NOT NULL,    -- candidate | retired | thin | failed
        retire_rule VARCHAR,              -- checks | too_few_core | contradicted_core | rewrite_failed_checks | gold_omits_core
        retire_reason VARCHAR,
        distractor VARCHAR,
        revised BOOLEAN DEFAULT FALSE,
        revision_note VARCHAR,
        PRIMARY KEY (run_id, question_id)
    )""",
    # Automatic checks: one summary row per question per check run ...
    """CREATE TABLE question_check_results (
        run_id VARCHAR NOT NULL,
        question_id VARCHAR NOT NULL,
        source VARCHAR,
        film_id VARCHAR,
        qtype VARCHAR,
        passed BOOLEAN NOT NULL,
        leak_score DOUBLE,
        anchor_words INTEGER,
        anchor_rivals INTEGER,
        name_violations VARCHAR[],
        checks_version VARCHAR NOT NULL,
        PRIMARY KEY (run_id, question_id)
    )""",
    # ... and one row per failed check, with the reason a researcher reads.
    """CREATE TABLE question_check_failures (
        run_id VARCHAR NOT NULL,
        question_id VARCHAR NOT NULL,
        check_name VARCHAR NOT NULL,
        reason VARCHAR NOT NULL,
        PRIMARY KEY (run_id, question_id, check_name)
    )""",
    # Near-duplicate question pairs above the cosine threshold (MiniLM) and their clusters.
    """CREATE TABLE question_near_duplicates (
        run_id VARCHAR NOT NULL,
        question_a VARCHAR NOT NULL,
        question_b VARCHAR NOT NULL,
        cosine DOUBLE NOT NULL,
        PRIMARY KEY (run_id, question_a, question_b)
    )""",
    """CREATE TABLE question_clusters (
        run_id VARCHAR NOT NULL,
        question_id VARCHAR NOT NULL,
        cluster_id INTEGER NOT NULL,      -- connected component of the near-duplicate graph
        cluster_size INTEGER NOT NULL,
        PRIMARY KEY (run_id, question_id)
    )""",
    # Diversity per question type: Self-BLEU-2/4 in percent (StoryMindv2 Table 2) ...
    """CREATE TABLE question_diversity (
        run_id VARCHAR NOT NULL,
        qtype VARCHAR NOT NULL,           -- '*' for all questions of the run
        n_questions INTEGER NOT NULL,
        self_bleu_2 DOUBLE,
        self_bleu_4 DOUBLE,
        PRIMARY KEY (run_id, qtype)
    )""",
    # ... and the most frequent opening frames (Table 23, "VARY THE FRAME").
    """CREATE TABLE question_opening_frames (
        run_id VARCHAR NOT NULL,
        qtype VARCHAR NOT NULL,
        frame VARCHAR NOT NULL,           -- first n words of the question body, lower-cased
        n_words INTEGER NOT NULL,
        count INTEGER NOT NULL,
        share DOUBLE NOT NULL,
        PRIMARY KEY (run_id, qtype, n_words, frame)
    )""",
]


@migration(400, "question generation records, checks and analytics")
def create_qgen_tables(connection) -> None:
    for statement in QGEN_TABLES:
        connection.execute(statement)
