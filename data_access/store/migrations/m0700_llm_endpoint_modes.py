"""The structured-output mode each (endpoint, model) accepted, and a short failure
reason on each LLM call so failures can be counted by cause.

The gateway negotiates json_schema -> json_object + schema -> prompt instructions once per
endpoint and model and remembers the mode here, so later runs (and their cache keys, which
include the request format) start from the mode that works.
"""

from data_access.store.migrations import migration


@migration(700, "llm endpoint modes")
def create_llm_endpoint_modes(connection) -> None:
    connection.execute(
        """CREATE TABLE llm_endpoint_modes (
            base_url VARCHAR NOT NULL,        -- as configured (no credentials in it)
            model VARCHAR NOT NULL,
            mode VARCHAR NOT NULL,            -- json_schema | json_object | prompt
            reason VARCHAR,                   -- the rejection that moved it down, if any
            updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (base_url, model)
        )"""
    )


@migration(701, "llm call failure reason")
def add_llm_call_reason(connection) -> None:
    connection.execute("ALTER TABLE llm_calls ADD COLUMN reason VARCHAR")


@migration(702, "judge evals")
def create_judge_evals(connection) -> None:
    # A judge scored against human labels (`storyscope judge-eval`), kept per run so the
    # Verdicts page can show the judge beside the benchmark's released detectors.
    connection.execute(
        """CREATE TABLE judge_evals (
            eval_id VARCHAR PRIMARY KEY,
            benchmark VARCHAR NOT NULL,       -- storysumm
            judge VARCHAR NOT NULL,           -- lexical | model name
            backend VARCHAR NOT NULL,
            n_summaries INTEGER,
            n_sentences INTEGER,
            kappa DOUBLE,
            accuracy DOUBLE,
            balanced_accuracy DOUBLE,
            failed INTEGER,
            anchors JSON,                     -- [{name, balanced_accuracy, n_summaries}]
            run_id VARCHAR,                   -- the LLM run, when the judge is a model
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
