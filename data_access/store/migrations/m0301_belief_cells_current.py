"""Belief tables become "current" per cell, not per film.

Before: `current_presence` / `current_beliefs` / `current_meta_beliefs` / `current_scene_events`
held the rows of a film's latest finished run, so `beliefs annotate --scenes 5:10` (or
`--characters ANNA`) hid every other scene and character of the film. Now a run supersedes earlier
runs only where it worked:

- a character's cell is (film, scene, character); a run covers the cells it wrote presence,
  belief or meta-belief rows for; per cell the latest finished run's rows are current;
- scene events are current per (film, scene).

A full run still replaces everything, as before. Beliefs that an older run recorded as revised at a
later scene keep that run's revision (runs are append-only; DESIGN.md).
"""

from data_access.store.migrations import migration

_FINISHED = "SELECT run_id, started_at FROM runs WHERE status = 'finished'"


@migration(301, "belief cells current")
def current_belief_cells(connection) -> None:
    connection.execute(
        f"""
        CREATE OR REPLACE VIEW current_belief_cells AS
        WITH covered AS (
            SELECT film_id, scene_index, character, run_id FROM presence
            UNION SELECT film_id, scene_index, holder, run_id FROM beliefs
            UNION SELECT film_id, scene_index, holder, run_id FROM meta_beliefs
        )
        SELECT c.film_id, c.scene_index, c.character, arg_max(c.run_id, f.started_at) AS run_id
        FROM covered c JOIN ({_FINISHED}) f USING (run_id)
        GROUP BY c.film_id, c.scene_index, c.character
        """
    )
    for table, who in (
        ("presence", "character"),
        ("beliefs", "holder"),
        ("meta_beliefs", "holder"),
    ):
        connection.execute(
            f"""
            CREATE OR REPLACE VIEW current_{table} AS
            SELECT t.* FROM {table} t JOIN current_belief_cells c
              ON t.film_id = c.film_id AND t.scene_index = c.scene_index AND t.{who} = c.character
             AND t.run_id = c.run_id
            """
        )
    connection.execute(
        f"""
        CREATE OR REPLACE VIEW current_scene_events AS
        WITH latest AS (
            SELECT e.film_id, e.scene_index, arg_max(e.run_id, f.started_at) AS run_id
            FROM (SELECT DISTINCT film_id, scene_index, run_id FROM scene_events) e
            JOIN ({_FINISHED}) f USING (run_id)
            GROUP BY e.film_id, e.scene_index
        )
        SELECT t.* FROM scene_events t JOIN latest USING (film_id, scene_index, run_id)
        """
    )
