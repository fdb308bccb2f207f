""" "Current" views: the rows of the latest finished run, per film (or per judged claim).

Runs append and nothing is overwritten (DESIGN.md), so a film preprocessed twice has two sets
of scenes. Pages read these views; comparisons across runs read the base tables.
"""

from data_access.store.migrations import migration

# table -> the key within which the latest finished run wins
PER_FILM_TABLES = [
    "scenes",
    "script_lines",
    "characters",
    "subtitles",
    "scene_events",
    "presence",
    "beliefs",
    "meta_beliefs",
    "plottree_nodes",
]


def _latest_run_view(table: str, key: str) -> str:
    return f"""
    CREATE OR REPLACE VIEW current_{table} AS
    WITH candidate_runs AS (SELECT DISTINCT {key}, run_id FROM {table}),
    latest AS (
        SELECT c.{key}, arg_max(c.run_id, r.started_at) AS run_id
        FROM candidate_runs c JOIN runs r USING (run_id)
        WHERE r.status = 'finished'
        GROUP BY c.{key}
    )
    SELECT t.* FROM {table} t JOIN latest USING ({key}, run_id)
    """


@migration(2, "current views")
def create_current_views(connection) -> None:
    for table in PER_FILM_TABLES:
        connection.execute(_latest_run_view(table, "film_id"))
    connection.execute(_latest_run_view("mcq_difficulty", "mcq_id"))
    # A judge rerun on a slice supersedes only the claims it judged.
    connection.execute(
        """
        CREATE OR REPLACE VIEW current_claim_verdicts AS
        SELECT v.* FROM claim_verdicts v
        JOIN (
            SELECT v.judge_id, v.answer_id, v.claim_id, arg_max(v.run_id, r.started_at) AS run_id
            FROM claim_verdicts v JOIN runs r USING (run_id)
            WHERE r.status = 'finished'
            GROUP BY v.judge_id, v.answer_id, v.claim_id
        ) latest USING (judge_id, answer_id, claim_id, run_id)
        """
    )
