"""Scene summaries (LF-VideoQA App. C, Table 16) as their own runs: a summary pass (offline
extractive, or an LLM through the gateway) appends rows here instead of rewriting the scenes it
summarises (runs append, DESIGN.md). `current_scenes` now carries the latest finished summary
of each scene, so every reader of scene summaries (Stage 1 scene cards, Stage 3 story context,
the Film page) sees it without change; a scene never summarised keeps the summary its import
wrote (or none)."""

from data_access.store.migrations import migration


@migration(740, "scene summaries")
def create_scene_summaries(connection) -> None:
    connection.execute(
        """CREATE TABLE scene_summaries (
            film_id VARCHAR NOT NULL,
            scene_index INTEGER NOT NULL,
            summary VARCHAR NOT NULL,
            backend VARCHAR NOT NULL,         -- extractive | <model>@scene-summary-v1
            run_id VARCHAR NOT NULL,
            PRIMARY KEY (film_id, scene_index, run_id)
        )"""
    )
    connection.execute(
        """
        CREATE OR REPLACE VIEW current_scene_summaries AS
        SELECT s.* FROM scene_summaries s
        JOIN (
            SELECT s.film_id, s.scene_index, arg_max(s.run_id, r.started_at) AS run_id
            FROM scene_summaries s JOIN runs r USING (run_id)
            WHERE r.status = 'finished'
            GROUP BY s.film_id, s.scene_index
        ) latest USING (film_id, scene_index, run_id)
        """
    )
    # Same rows as migration 2's view; the summary columns prefer the latest summary run.
    connection.execute(
        """
        CREATE OR REPLACE VIEW current_scenes AS
        WITH candidate_runs AS (SELECT DISTINCT film_id, run_id FROM scenes),
        latest AS (
            SELECT c.film_id, arg_max(c.run_id, r.started_at) AS run_id
            FROM candidate_runs c JOIN runs r USING (run_id)
            WHERE r.status = 'finished'
            GROUP BY c.film_id
        )
        SELECT t.* REPLACE (
            coalesce(ss.summary, t.summary) AS summary,
            coalesce(ss.backend, t.summary_backend) AS summary_backend
        )
        FROM scenes t JOIN latest USING (film_id, run_id)
        LEFT JOIN current_scene_summaries ss
            ON ss.film_id = t.film_id AND ss.scene_index = t.scene_index
        """
    )
