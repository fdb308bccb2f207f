"""The `jobs` table: long work (judge, generation) started by the CLI or the app and polled.

A job row holds the kind, its (key-free) parameters, the run it writes under, its state
(queued | running | finished | failed | stopped | interrupted), progress counters and the pid of
the process running it. Stop requests are rows of `job_signals` (m0201). What a job's state is
*now* (a `running` row whose process died is interrupted) is decided in `pipelines.jobs`.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime

import duckdb
import pandas as pd

from data_access.store import Store


def new_job_id(kind: str) -> str:
    """A unique job id that sorts by creation time."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    return f"job-{kind.split(':')[-1]}-{stamp}-{secrets.token_hex(3)}"


def create_job(store: Store, kind: str, params: dict, total: int = 0) -> str:
    """Insert a queued job and return its id."""
    job_id = new_job_id(kind)
    with store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO jobs (job_id, kind, params, total) VALUES (?, ?, ?, ?)",
            [job_id, kind, json.dumps(params, sort_keys=True, default=str), total],
        )
    return job_id


def get_job(store: Store, job_id: str) -> dict | None:
    """One job as a dict (params decoded), or None."""
    frame = store.df("SELECT * FROM jobs WHERE job_id = ?", [job_id])
    if frame.empty:
        return None
    row = frame.iloc[0].to_dict()
    row["params"] = json.loads(row["params"]) if row["params"] else {}
    return row


def list_jobs(store: Store, kind: str | None = None, limit: int = 100) -> pd.DataFrame:
    """The newest jobs first."""
    return store.df(
        "SELECT * FROM jobs WHERE (? IS NULL OR kind = ?) ORDER BY created_at DESC LIMIT ?",
        [kind, kind, limit],
    )


def set_state(
    store: Store,
    job_id: str,
    state: str,
    *,
    pid: int | None = None,
    error: str | None = None,
    clear_error: bool = False,
) -> None:
    """Change a job's state (and pid / error when given)."""
    with store.transaction() as cursor:
        cursor.execute(
            "UPDATE jobs SET state = ?, pid = coalesce(?, pid),"
            " error = CASE WHEN ? THEN NULL ELSE coalesce(?, error) END,"
            " updated_at = current_timestamp WHERE job_id = ?",
            [state, pid, clear_error, error, job_id],
        )


def _plain(value):
    """A value of a DataFrame row as DuckDB binds it (NaN/NaT -> None, numpy -> Python)."""
    if value is None or pd.isna(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value.item() if hasattr(value, "item") else value


def claim_job(store: Store, observed: dict, pid: int) -> bool:
    """Queue the job for process `pid` if its row is still exactly as `observed` (a `get_job`
    row: state, pid and last update): a compare-and-set, so of two resumes of one job at once
    only one wins."""
    state, old_pid, updated = (_plain(observed[k]) for k in ("state", "pid", "updated_at"))
    try:
        with store.transaction() as cursor:
            claimed = cursor.execute(
                "UPDATE jobs SET state = 'queued', pid = ?, updated_at = current_timestamp"
                " WHERE job_id = ? AND state = ? AND pid IS NOT DISTINCT FROM ?"
                " AND updated_at IS NOT DISTINCT FROM ? RETURNING job_id",
                [pid, observed["job_id"], state, old_pid, updated],
            ).fetchall()
    except duckdb.TransactionException:  # another thread of this process changed it first
        return False
    return bool(claimed)


def set_pid_if_queued(store: Store, job_id: str, pid: int) -> None:
    """Note the child process of a job that has not started running yet."""
    with store.transaction() as cursor:
        cursor.execute(
            "UPDATE jobs SET pid = ? WHERE job_id = ? AND state = 'queued'", [pid, job_id]
        )


def set_run(store: Store, job_id: str, run_id: str, total: int) -> None:
    """Attach the job's run and its item total."""
    with store.transaction() as cursor:
        cursor.execute(
            "UPDATE jobs SET run_id = ?, total = ?, updated_at = current_timestamp"
            " WHERE job_id = ?",
            [run_id, total, job_id],
        )


def set_progress(
    cursor: duckdb.DuckDBPyConnection,
    job_id: str,
    done: int,
    failed: int,
    cost_usd: float,
    tokens: int,
) -> None:
    """Write absolute progress inside the caller's transaction (the batch that made it)."""
    cursor.execute(
        "UPDATE jobs SET done = ?, failed = ?, cost_usd = ?, tokens = ?,"
        " updated_at = current_timestamp WHERE job_id = ?",
        [done, failed, cost_usd, tokens, job_id],
    )


def request_stop(store: Store, job_id: str) -> None:
    """Ask a running job to stop after its current batch (an insert: never conflicts)."""
    with store.transaction() as cursor:
        cursor.execute("INSERT INTO job_signals (job_id, signal) VALUES (?, 'stop')", [job_id])


def stop_requested(store: Store, job_id: str, since=None) -> bool:
    """True once `request_stop` was called for the job (after `since`, when given)."""
    return bool(
        store.scalar(
            "SELECT count(*) FROM job_signals WHERE job_id = ? AND signal = 'stop'"
            " AND (CAST(? AS TIMESTAMP) IS NULL OR created_at >= CAST(? AS TIMESTAMP))",
            [job_id, since, since],
        )
    )


def clear_stop(store: Store, job_id: str) -> None:
    """Forget earlier stop requests (a resumed job runs again)."""
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM job_signals WHERE job_id = ?", [job_id])
