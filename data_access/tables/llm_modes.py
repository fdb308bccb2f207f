"""Remembered structured-output modes per (endpoint, model) (table `llm_endpoint_modes`)."""

from __future__ import annotations

import duckdb
import pandas as pd

from data_access.store import Store


def remembered_mode(store: Store, base_url: str, model: str) -> str | None:
    """The mode that last worked for this endpoint and model, or None if never negotiated."""
    with store.session() as cursor:
        row = cursor.execute(
            "SELECT mode FROM llm_endpoint_modes WHERE base_url = ? AND model = ?",
            [base_url, model],
        ).fetchone()
    return None if row is None else row[0]


def remember_mode(
    cursor: duckdb.DuckDBPyConnection, base_url: str, model: str, mode: str, reason: str | None
) -> None:
    """Record (or replace) the mode of an endpoint and model, inside the caller's transaction."""
    cursor.execute(
        "INSERT INTO llm_endpoint_modes (base_url, model, mode, reason) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (base_url, model) DO UPDATE SET mode = excluded.mode,"
        " reason = excluded.reason, updated_at = now()",
        [base_url, model, mode, reason],
    )


def endpoint_modes(store: Store) -> pd.DataFrame:
    """Every remembered (endpoint, model, mode, reason, updated_at)."""
    return store.df("SELECT * FROM llm_endpoint_modes ORDER BY updated_at DESC")


def failure_reasons(store: Store, run_ids: list[str]) -> pd.DataFrame:
    """Failed LLM calls of runs in call order: run_id, item_id, reason, error."""
    return store.df(
        "SELECT run_id, item_id, reason, error FROM llm_calls"
        " WHERE status = 'failed' AND run_id IN (SELECT unnest(?)) ORDER BY created_at",
        [list(run_ids)],
    )


def remembered_tool_mode(store: Store, base_url: str, model: str) -> str | None:
    """The tool-call mode that last worked for this endpoint and model (None: never tried)."""
    with store.session() as cursor:
        row = cursor.execute(
            "SELECT tool_mode FROM llm_endpoint_tool_modes WHERE base_url = ? AND model = ?",
            [base_url, model],
        ).fetchone()
    return None if row is None else row[0]


def remember_tool_mode(
    cursor: duckdb.DuckDBPyConnection, base_url: str, model: str, mode: str, reason: str | None
) -> None:
    """Record (or replace) the tool-call mode of an endpoint and model, in the caller's
    transaction."""
    cursor.execute(
        "INSERT INTO llm_endpoint_tool_modes (base_url, model, tool_mode, reason)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (base_url, model) DO UPDATE SET"
        " tool_mode = excluded.tool_mode, reason = excluded.reason, updated_at = now()",
        [base_url, model, mode, reason],
    )
