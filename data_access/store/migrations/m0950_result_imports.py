"""Results imported from evaluation harnesses.

One row per `import results` run: the harness, its version, the model, its arguments, the task
and the hash of the file read, so a setting's answers can be traced to the file they came from,
re-importing the same file is recognised (a no-op) and a changed file is a new run. The answers
and predictions themselves are ordinary rows of `answers` / `mcq_predictions`.
"""

from data_access.store.migrations import migration


@migration(950, "result imports")
def create_result_imports(connection) -> None:
    connection.execute(
        """CREATE TABLE result_imports (
            run_id VARCHAR PRIMARY KEY,
            setting_name VARCHAR NOT NULL,    -- the name asked for (--setting) or derived
            setting_id VARCHAR NOT NULL,      -- settings.setting_id / mcq_predictions.method
            kind VARCHAR NOT NULL,            -- answers | predictions
            format VARCHAR NOT NULL,          -- lmms-eval | vlmevalkit | inspect | ...
            harness VARCHAR NOT NULL,
            harness_version VARCHAR,
            model VARCHAR,
            model_args VARCHAR,
            task VARCHAR,
            source VARCHAR NOT NULL,          -- the file or folder read
            file_sha256 VARCHAR NOT NULL,
            n_samples INTEGER NOT NULL,
            n_matched INTEGER NOT NULL,
            unmatched JSON                    -- reason -> {count, first_ids}
        )"""
    )
