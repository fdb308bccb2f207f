"""The unit ledger of scaled-out batches (tables of migration 760; pipelines/scale/runner.py).

The driver is the single writer: it records each finished unit here in the same transaction
as the unit's rows, so a batch resumed after a kill skips exactly the units already written.
A unit's current status is its latest row (a failed unit retried on resume gets a new one).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import duckdb

from data_access.store import Store
from data_access.tables.runs import RunSpec, finish_run, insert_run


def open_batch(store: Store, batch_key: str) -> str | None:
    """The unfinished batch with this key (a killed run of the same command), if any."""
    return store.scalar(
        "SELECT batch_id FROM scale_batches WHERE batch_key = ? AND state = 'running'"
        " ORDER BY started_at DESC LIMIT 1",
        [batch_key],
    )


def create_batch(
    store: Store,
    batch_key: str,
    step: str,
    executor: str,
    workers: int,
    total: int,
    params: dict[str, Any],
) -> str:
    """Record a new batch and return its id."""
    batch_id = f"{step.replace('.', '-')}-{secrets.token_hex(5)}"
    with store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO scale_batches (batch_id, batch_key, step, executor, workers, total,"
            " state, params) VALUES (?, ?, ?, ?, ?, ?, 'running', ?)",
            [batch_id, batch_key, step, executor, workers, total, json.dumps(params, default=str)],
        )
    return batch_id


def mark_attempt(store: Store, batch_id: str, executor: str, workers: int) -> None:
    """Note which executor a resumed batch now runs on."""
    with store.transaction() as cursor:
        cursor.execute(
            "UPDATE scale_batches SET executor = ?, workers = ? WHERE batch_id = ?",
            [executor, workers, batch_id],
        )


def done_units(store: Store, batch_id: str) -> dict[str, Any]:
    """unit key -> its stored result (parsed JSON, or None) for the units already done."""
    rows = store.rows(
        "SELECT unit_key, result FROM scale_units WHERE batch_id = ? AND status = 'done'",
        [batch_id],
    )
    return {key: (None if result is None else json.loads(result)) for key, result in rows}


def record_unit(
    cursor: duckdb.DuckDBPyConnection,
    batch_id: str,
    unit_key: str,
    error: str | None,
    worker: str,
    seconds: float,
    result: Any = None,
) -> None:
    """One finished unit (inside the transaction that writes its rows)."""
    cursor.execute(
        "INSERT INTO scale_units (batch_id, unit_key, status, error, worker, seconds, result)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            batch_id,
            unit_key,
            "done" if error is None else "failed",
            error,
            worker,
            seconds,
            None if result is None else json.dumps(result),
        ],
    )


def start_unit_run(store: Store, batch_id: str, unit_key: str, spec: RunSpec) -> str:
    """Start the run a unit writes under, recorded as this batch's, and return its id."""
    with store.transaction() as cursor:
        run_id = insert_run(cursor, spec)
        cursor.execute(
            "INSERT INTO scale_unit_runs (batch_id, unit_key, run_id) VALUES (?, ?, ?)",
            [batch_id, unit_key, run_id],
        )
    return run_id


def close_abandoned_runs(store: Store, batch_id: str) -> list[str]:
    """Mark `failed` the runs this batch's units opened that are still `running`, and return
    their ids.

    Called when a batch is resumed: the driver that opened them is gone (the resume is the
    same command, and a batch has one driver at a time), so no one will finish them; their
    units run again under new runs. The note says why, on the Runs page.
    """
    note = f"driver stopped before the unit was written; batch {batch_id} was resumed"
    with store.transaction() as cursor:
        run_ids = [
            row[0]
            for row in cursor.execute(
                "SELECT r.run_id FROM runs r JOIN scale_unit_runs u USING (run_id)"
                " WHERE u.batch_id = ? AND r.status = 'running' ORDER BY r.run_id",
                [batch_id],
            ).fetchall()
        ]
        for run_id in run_ids:
            finish_run(cursor, run_id, status="failed")
            cursor.execute(
                "UPDATE runs SET note = concat_ws('; ', note, ?) WHERE run_id = ?", [note, run_id]
            )
    return run_ids


def finish_batch(cursor: duckdb.DuckDBPyConnection, batch_id: str) -> None:
    """Close a batch whose units are all done (a later run of the command starts afresh)."""
    cursor.execute(
        "UPDATE scale_batches SET state = 'finished', finished_at = current_timestamp"
        " WHERE batch_id = ?",
        [batch_id],
    )


CURRENT_UNITS = """
    SELECT batch_id, unit_key, arg_max(status, finished_at) AS status,
           arg_max(error, finished_at) AS error
    FROM scale_units GROUP BY batch_id, unit_key
"""


def unit_write_counts(store: Store, batch_id: str) -> dict[str, int]:
    """unit key -> how many times it was recorded done (1 when written exactly once)."""
    rows = store.rows(
        "SELECT unit_key, count(*) FROM scale_units WHERE batch_id = ? AND status = 'done'"
        " GROUP BY unit_key",
        [batch_id],
    )
    return dict(rows)
