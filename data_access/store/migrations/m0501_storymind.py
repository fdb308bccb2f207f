"""StoryMindv2 stage outputs (StoryVideoQA §3.2-3.3): every QA at every stage, per run.

stage: generated | tool_inactive (topic tool already deactivated) | supervisor_deleted (the
fault archive) | supervisor_kept | feedback | review | kept | rejected. payload holds the QA
(or the feedback text / reviewer verdicts) as JSON.
"""

from data_access.store.migrations import migration


@migration(501, "storymind items")
def create_storymind_items(connection) -> None:
    connection.execute(
        """CREATE TABLE storymind_items (
            run_id VARCHAR NOT NULL,
            vid VARCHAR NOT NULL,
            batch INTEGER NOT NULL,
            stage VARCHAR NOT NULL,
            item_id VARCHAR NOT NULL,
            topic VARCHAR,
            payload JSON NOT NULL,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (run_id, stage, item_id)
        )"""
    )
