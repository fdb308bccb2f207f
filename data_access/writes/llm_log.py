"""The LLM cache and the per-call log (tables `llm_cache`, `llm_calls`, usage on `runs`).

The cache is content-addressed: `cache_key` = sha256 of (model, messages, params), computed by
the gateway. Only replies that passed validation are cached, so a replay never replays a
failure. Rows are written in batches through a registered Arrow table (DuckDB inserts it far
faster than row-by-row `executemany`, and building it costs a fraction of a pandas frame: the
gateway writes a batch every 0.5 s); values never pass through SQL text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from data_access.store import Store
from data_access.writes.runs import add_run_usage

_CALL_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("item_id", pa.string()),
        ("cache_key", pa.string()),
        ("cached", pa.bool_()),
        ("status", pa.string()),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_ms", pa.float64()),
        ("attempts", pa.int64()),
        ("error", pa.string()),
        ("raw_reply", pa.string()),
        ("reason", pa.string()),
    ]
)
CALL_COLUMNS = _CALL_SCHEMA.names


@dataclass
class CacheEntry:
    """One validated reply to store under its key."""

    cache_key: str
    model: str
    request: dict
    response: dict
    prompt_tokens: int
    completion_tokens: int


def lookup_cache(store: Store, keys: list[str]) -> dict[str, dict]:
    """The cached responses of `keys` that exist, as {cache_key: response dict}."""
    if not keys:
        return {}
    with store.session() as cursor:
        rows = cursor.execute(
            "SELECT cache_key, response FROM llm_cache WHERE cache_key IN (SELECT unnest(?))",
            [list(dict.fromkeys(keys))],
        ).fetchall()
    return {key: json.loads(response) for key, response in rows}


def write_cache(cursor: duckdb.DuckDBPyConnection, entries: list[CacheEntry]) -> None:
    """Insert new cache entries (a key already present keeps its first reply)."""
    if not entries:
        return
    first: dict[str, CacheEntry] = {}
    for entry in entries:  # a key repeated in the batch keeps its first reply
        first.setdefault(entry.cache_key, entry)
    unique = list(first.values())
    frame = pa.table(
        {
            "cache_key": [e.cache_key for e in unique],
            "model": [e.model for e in unique],
            "request": [json.dumps(e.request, sort_keys=True) for e in unique],
            "response": [json.dumps(e.response, sort_keys=True) for e in unique],
            "prompt_tokens": pa.array([e.prompt_tokens for e in unique], pa.int64()),
            "completion_tokens": pa.array([e.completion_tokens for e in unique], pa.int64()),
        }
    )
    cursor.register("new_cache_entries", frame)
    try:
        cursor.execute(
            # (the primary-key index finds the keys already present; a NOT IN over the
            # whole cache grew with it)
            "INSERT OR IGNORE INTO llm_cache (cache_key, model, request, response,"
            " prompt_tokens, completion_tokens) SELECT n.cache_key, n.model, n.request,"
            " n.response, n.prompt_tokens, n.completion_tokens FROM new_cache_entries n"
        )
    finally:
        cursor.unregister("new_cache_entries")


def write_calls(cursor: duckdb.DuckDBPyConnection, calls: list[dict]) -> None:
    """Append per-call rows (dicts with the keys of CALL_COLUMNS) to `llm_calls`."""
    if not calls:
        return
    frame = pa.Table.from_pylist(calls, schema=_CALL_SCHEMA)
    cursor.register("new_llm_calls", frame)
    try:
        cursor.execute(
            f"INSERT INTO llm_calls ({', '.join(CALL_COLUMNS)})"
            f" SELECT {', '.join(CALL_COLUMNS)} FROM new_llm_calls"
        )
    finally:
        cursor.unregister("new_llm_calls")


def record_batch(
    cursor: duckdb.DuckDBPyConnection, run_id: str, entries: list[CacheEntry], calls: list[dict]
) -> None:
    """Cache entries, call rows and the run's token/cost totals for one batch, in one go."""
    write_cache(cursor, entries)
    write_calls(cursor, calls)
    fresh = [c for c in calls if not c["cached"]]
    add_run_usage(
        cursor,
        run_id,
        sum(int(c["prompt_tokens"] or 0) for c in fresh),
        sum(int(c["completion_tokens"] or 0) for c in fresh),
        float(sum(c["cost_usd"] or 0.0 for c in fresh)),
    )


def run_usage(store: Store, run_id: str) -> dict:
    """Tokens and cost recorded on a run."""
    frame = store.df(
        "SELECT prompt_tokens, completion_tokens, cost_usd FROM runs WHERE run_id = ?", [run_id]
    )
    return {} if frame.empty else frame.iloc[0].to_dict()
