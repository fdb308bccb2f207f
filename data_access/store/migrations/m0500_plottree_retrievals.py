"""PlotTree retrievals (StoryVideoQA §5.2): what was retrieved for a question, and the answer.

The paper reuses a built tree for many questions; the PlotTree page shows, per question, the
top-M nodes (ids and cosine scores, in the order they were sent: chronological), the context
and the answer with the backend that produced it (NULL answer offline).
"""

from data_access.store.migrations import migration


@migration(500, "plottree retrievals")
def create_plottree_retrievals(connection) -> None:
    connection.execute(
        """CREATE TABLE plottree_retrievals (
            run_id VARCHAR NOT NULL,
            film_id VARCHAR NOT NULL,
            item_id VARCHAR NOT NULL,         -- mcq_id, or 'ask:<hash>' for a free question
            question VARCHAR NOT NULL,
            tree_run_id VARCHAR NOT NULL,     -- the plottree.build run the nodes come from
            node_ids VARCHAR[] NOT NULL,      -- chronological (the order of the context)
            scores DOUBLE[] NOT NULL,
            context VARCHAR NOT NULL,
            answer VARCHAR,                   -- NULL offline
            answer_option VARCHAR,            -- A-E when the question is an MCQ
            answer_backend VARCHAR,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (run_id, item_id)
        )"""
    )
