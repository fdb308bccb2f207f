"""Runs: the provenance every derived row points to (DESIGN.md, "Every derived row carries
provenance"). A run is started, its rows are written under its id, and it is finished or
failed; runs are never deleted or rewritten beyond their status and counters."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import duckdb
import pandas as pd

from data_access import rollups
from data_access.store import Store


def new_run_id(step: str) -> str:
    """A run id that sorts by start time and is unique across processes."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    return f"{step.replace('.', '-')}-{stamp}-{secrets.token_hex(3)}"


@dataclass
class RunSpec:
    """What a run is: the step, the method that did it and its parameters."""

    step: str
    backend: str | None = None
    model: str | None = None
    prompt_version: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    reported_by_paper: bool = False
    note: str | None = None


def insert_run(
    cursor: duckdb.DuckDBPyConnection,
    spec: RunSpec,
    run_id: str | None = None,
    status: str = "running",
) -> str:
    """Record a new run inside the caller's transaction and return its id."""
    run_id = run_id or new_run_id(spec.step)
    cursor.execute(
        "INSERT INTO runs (run_id, step, backend, model, prompt_version, params, source,"
        " reported_by_paper, status, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            spec.step,
            spec.backend,
            spec.model,
            spec.prompt_version,
            json.dumps(spec.params, sort_keys=True, default=str),
            spec.source,
            spec.reported_by_paper,
            status,
            spec.note,
        ],
    )
    return run_id


def finish_run(
    cursor: duckdb.DuckDBPyConnection,
    run_id: str,
    status: str = "finished",
    n_items: int | None = None,
    n_failed: int | None = None,
) -> None:
    """Close a run with its final status and counts, and bring the rollups up to date
    (data_access.rollups.freshness: the run's verdicts or predictions are aggregated once, here)."""
    rollup_state = rollups.before_run_finished(cursor, run_id)
    cursor.execute(
        "UPDATE runs SET status = ?, finished_at = current_timestamp,"
        " n_items = coalesce(?, n_items), n_failed = coalesce(?, n_failed) WHERE run_id = ?",
        [status, n_items, n_failed, run_id],
    )
    rollups.after_run_finished(cursor, rollup_state)


def add_run_usage(
    cursor: duckdb.DuckDBPyConnection,
    run_id: str,
    prompt_tokens: int,
    completion_tokens: int,
    cost_usd: float,
) -> None:
    """Add token and cost counts to a run (LLM steps call it per batch)."""
    cursor.execute(
        "UPDATE runs SET prompt_tokens = prompt_tokens + ?,"
        " completion_tokens = completion_tokens + ?, cost_usd = cost_usd + ? WHERE run_id = ?",
        [prompt_tokens, completion_tokens, cost_usd, run_id],
    )


def start_run(store: Store, spec: RunSpec) -> str:
    """Start a run in its own short transaction (for long steps that write in batches)."""
    with store.transaction() as cursor:
        return insert_run(cursor, spec)


def end_run(
    store: Store,
    run_id: str,
    status: str = "finished",
    n_items: int | None = None,
    n_failed: int | None = None,
) -> None:
    """Finish a run started with `start_run`."""
    with store.transaction() as cursor:
        finish_run(cursor, run_id, status, n_items, n_failed)


def list_runs(store: Store, step: str | None = None, limit: int = 200) -> pd.DataFrame:
    """The newest runs first, optionally of one step."""
    return store.df(
        "SELECT * FROM runs WHERE (? IS NULL OR step = ?) ORDER BY started_at DESC LIMIT ?",
        [step, step, limit],
    )


@dataclass(frozen=True)
class RunUsage:
    """What a run has spent so far (zeros for a run that made no call, or no such run)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def run_usage(cursor: duckdb.DuckDBPyConnection, run_id: str) -> RunUsage:
    """The tokens and cost recorded on a run, read with the caller's cursor (inside its
    transaction when it holds one)."""
    row = cursor.execute(
        "SELECT coalesce(prompt_tokens, 0), coalesce(completion_tokens, 0),"
        " coalesce(cost_usd, 0) FROM runs WHERE run_id = ?",
        [run_id],
    ).fetchone()
    return RunUsage(int(row[0]), int(row[1]), float(row[2])) if row else RunUsage()


def count_runs(store: Store, step: str, source: str | None = None) -> int:
    """How many runs of `step` (from `source`, when given) the store holds."""
    return int(
        store.scalar(
            "SELECT count(*) FROM runs WHERE step = ? AND (? IS NULL OR source = ?)",
            [step, source, source],
        )
    )


def run_exists(store: Store, run_id: str) -> bool:
    """True when a run with this id is recorded (a resumed batch's run, pipelines/qgen/scaled)."""
    return bool(store.scalar("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]))
