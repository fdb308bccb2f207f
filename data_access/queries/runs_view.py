"""Queries of the Runs page: runs with usage and cache hits, jobs with progress, a run's calls,
its failed LLM calls per reason, and scaled batches with their units."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store
from data_access.tables.unit_ledger import CURRENT_UNITS

RUN_LIMIT = 200


def run_facets(store: Store) -> pd.DataFrame:
    """Steps and statuses present (filters)."""
    return store.df(
        "SELECT step, status, count(*) AS n FROM runs GROUP BY ALL ORDER BY step, status"
    )


def runs_table(
    store: Store,
    steps: tuple[str, ...] = (),
    statuses: tuple[str, ...] = (),
    limit: int = RUN_LIMIT,
) -> pd.DataFrame:
    """The newest runs (filtered) with tokens, cost, LLM calls, cache hits and failed calls."""
    return store.df(
        """
        WITH picked AS (
            SELECT * FROM runs
            WHERE (len(?) = 0 OR list_contains(?, step)) AND (len(?) = 0 OR list_contains(?,
                status))
            ORDER BY started_at DESC LIMIT ?
        ),
        calls AS (
            SELECT run_id, count(*) AS calls, count(*) FILTER (cached) AS cache_hits,
                   count(*) FILTER (status <> 'ok') AS failed_calls
            FROM llm_calls WHERE run_id IN (SELECT run_id FROM picked) GROUP BY run_id
        )
        SELECT p.run_id, p.step, p.backend, p.model, p.status, p.started_at, p.finished_at,
               p.n_items, p.n_failed, p.prompt_tokens + p.completion_tokens AS tokens, p.cost_usd,
               coalesce(c.calls, 0) AS calls, coalesce(c.cache_hits, 0) AS cache_hits,
               coalesce(c.failed_calls, 0) AS failed_calls, p.reported_by_paper, p.note
        FROM picked p LEFT JOIN calls c USING (run_id) ORDER BY p.started_at DESC
        """,
        [list(steps), list(steps), list(statuses), list(statuses), limit],
    )


def jobs_table(store: Store, limit: int = 100) -> pd.DataFrame:
    """The newest jobs with progress (done / total) and the error of failed ones."""
    return store.df(
        "SELECT job_id, kind, state, run_id, done, failed, total,"
        " CASE WHEN total > 0 THEN done / total END AS progress, tokens, cost_usd, error,"
        " created_at, updated_at FROM jobs ORDER BY created_at DESC LIMIT ?",
        [limit],
    )


def run_calls(store: Store, run_id: str, limit: int = 500) -> pd.DataFrame:
    """LLM calls of one run, failures first, with the raw reply of failed ones."""
    return store.df(
        "SELECT item_id, status, cached, attempts, prompt_tokens, completion_tokens, cost_usd,"
        " latency_ms, error, raw_reply, created_at FROM llm_calls WHERE run_id = ?"
        " ORDER BY status = 'ok', created_at LIMIT ?",
        [run_id, limit],
    )


def run_detail(store: Store, run_id: str) -> dict | None:
    """One run row with its parameters."""
    frame = store.df("SELECT * FROM runs WHERE run_id = ?", [run_id])
    return None if frame.empty else frame.iloc[0].to_dict()


def llm_failure_counts(store: Store, run_ids: list[str]) -> pd.DataFrame:
    """Failed LLM calls per run and reason, with the first error of each in full."""
    return store.df(
        "SELECT run_id, coalesce(reason, 'other') AS reason, count(*) AS failed,"
        " arg_min(error, created_at) AS first_error, min(created_at) AS first_at FROM llm_calls"
        " WHERE status = 'failed' AND run_id IN (SELECT unnest(?))"
        " GROUP BY ALL ORDER BY run_id, failed DESC, reason",
        [list(run_ids)],
    )


def batch_progress(store: Store, limit: int = 50) -> pd.DataFrame:
    """Newest batches first: step, executor, workers, units done / failed / total, state."""
    return store.df(
        f"""WITH u AS ({CURRENT_UNITS})
        SELECT b.batch_id, b.step, b.executor, b.workers, b.state, b.total,
               count(*) FILTER (WHERE u.status = 'done') AS done,
               count(*) FILTER (WHERE u.status = 'failed') AS failed,
               b.started_at, b.finished_at
        FROM scale_batches b LEFT JOIN u USING (batch_id)
        GROUP BY ALL ORDER BY b.started_at DESC LIMIT ?""",
        [limit],
    )


def unit_failures(store: Store, batch_id: str) -> pd.DataFrame:
    """The units of a batch whose latest attempt failed, with the reason."""
    return store.df(
        f"SELECT unit_key, error FROM ({CURRENT_UNITS}) WHERE batch_id = ? AND status = 'failed'"
        " ORDER BY unit_key",
        [batch_id],
    )
