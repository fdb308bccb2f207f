"""Which run a scaled-out unit opened, so jobs stay resumable.

The LLM steps (beliefs, scene summaries) start one run per unit on the driver before the unit
is dispatched. A driver killed while units were in flight left those runs `running` for ever:
nothing recorded which batch had opened them. Each such run is recorded here when it starts,
so the resume of its batch can close the ones a dead driver left open
(`data_access.tables.unit_ledger.close_abandoned_runs`).
"""

from data_access.store.migrations import migration


@migration(830, "scale unit runs")
def create_scale_unit_runs(connection) -> None:
    connection.execute(
        """CREATE TABLE scale_unit_runs (
            batch_id VARCHAR NOT NULL,
            unit_key VARCHAR NOT NULL,
            run_id VARCHAR NOT NULL,
            started_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
