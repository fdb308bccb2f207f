"""The unit ledger of scaled-out batches (docs/SCALE.md).

A batch is one command's set of work units (e.g. `plottree build --all`): its key is a hash
of the step, its parameters and its units, so the same command after a kill finds its batch
and skips the units already written. Every finished unit has one row, written in the same
transaction as the unit's results, with the reason when it failed.
"""

from data_access.store.migrations import migration


@migration(760, "scale units")
def create_scale_units(connection) -> None:
    connection.execute(
        """CREATE TABLE scale_batches (
            batch_id VARCHAR PRIMARY KEY,
            batch_key VARCHAR NOT NULL,       -- hash(step, params, unit keys)
            step VARCHAR NOT NULL,
            executor VARCHAR NOT NULL,        -- local | ray (of the latest attempt)
            workers INTEGER,
            total INTEGER NOT NULL,
            state VARCHAR NOT NULL,           -- running | finished
            params VARCHAR,
            started_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
            finished_at TIMESTAMP
        )"""
    )
    connection.execute(
        """CREATE TABLE scale_units (
            batch_id VARCHAR NOT NULL,
            unit_key VARCHAR NOT NULL,
            status VARCHAR NOT NULL,          -- done | failed
            error VARCHAR,
            worker VARCHAR,
            seconds DOUBLE,
            result VARCHAR,                   -- JSON a later step of the batch needs, if any
            finished_at TIMESTAMP NOT NULL DEFAULT current_timestamp
        )"""
    )
