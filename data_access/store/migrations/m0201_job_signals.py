"""Stop requests for jobs, kept apart from the `jobs` row: the job's own batches update that row
(progress) while another thread or process asks it to stop, and two writers updating one row
conflict in DuckDB. A signal is an insert, so it never conflicts."""

from data_access.store.migrations import migration


@migration(201, "job signals")
def create_job_signals(connection) -> None:
    connection.execute(
        """CREATE TABLE job_signals (
            job_id VARCHAR NOT NULL,
            signal VARCHAR NOT NULL,          -- stop
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
