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
import pyarrow.compute as pc

from data_access.store import Store, append_table
from data_access.tables.runs import add_run_usage

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


def cached_keys(store: Store, keys: list[str]) -> set[str]:
    """Which of `keys` the cache holds (the keys only: no reply is read or decoded)."""
    if not keys:
        return set()
    with store.session() as cursor:
        rows = cursor.execute(
            "SELECT cache_key FROM llm_cache WHERE cache_key IN (SELECT unnest(?))",
            [list(dict.fromkeys(keys))],
        ).fetchall()
    return {row[0] for row in rows}


def cache_table(entries: list[CacheEntry]) -> pa.Table:
    """The `llm_cache` rows of `entries` as an Arrow table, request and reply JSON-encoded (a
    key repeated in the list keeps its first reply). Built where the entries are made (a Ray
    worker), so the driver only inserts it (`insert_cache_table`)."""
    first: dict[str, CacheEntry] = {}
    for entry in entries:
        first.setdefault(entry.cache_key, entry)
    unique = list(first.values())
    return pa.table(
        {
            "cache_key": pa.array([e.cache_key for e in unique], pa.string()),
            "model": pa.array([e.model for e in unique], pa.string()),
            "request": pa.array(
                [json.dumps(e.request, sort_keys=True) for e in unique], pa.string()
            ),
            "response": pa.array(
                [json.dumps(e.response, sort_keys=True) for e in unique], pa.string()
            ),
            "prompt_tokens": pa.array([e.prompt_tokens for e in unique], pa.int64()),
            "completion_tokens": pa.array([e.completion_tokens for e in unique], pa.int64()),
        }
    )


class CacheKeyTaken(Exception):
    """A `known_new` cache insert met a key the cache already holds; the transaction is
    aborted (DuckDB), so the caller redoes it without `known_new`."""


_CACHE_COLUMNS = ["cache_key", "model", "request", "response", "prompt_tokens", "completion_tokens"]


def insert_cache_table(
    cursor: duckdb.DuckDBPyConnection, table: pa.Table, known_new: bool = False
) -> None:
    """Insert a `cache_table` (a key already in the cache keeps its first reply).

    `known_new`: the caller checked the keys against the cache before sending (`cached_keys`),
    so a plain INSERT: INSERT OR IGNORE's per-row conflict check cost 2.5-3x its CPU with 100k
    entries cached, and grew with the cache (the judge driver's CPU per call). A key
    there after all (another process cached the same request meanwhile, or two answers of the
    run share a prompt) raises `CacheKeyTaken`.
    """
    # (the primary-key index finds the keys already present; a NOT IN over the whole cache
    # grew with it)
    conflict = "error" if known_new else "ignore"
    try:
        append_table(cursor, "llm_cache", table, _CACHE_COLUMNS, conflict=conflict)
    except duckdb.ConstraintException as exc:
        if not known_new:
            raise
        raise CacheKeyTaken(str(exc)) from exc


def write_cache(cursor: duckdb.DuckDBPyConnection, entries: list[CacheEntry]) -> None:
    """Insert new cache entries (a key already present keeps its first reply)."""
    if entries:
        insert_cache_table(cursor, cache_table(entries))


def calls_table(calls: list[dict]) -> pa.Table:
    """Per-call rows (dicts with the keys of CALL_COLUMNS) as an Arrow table."""
    return pa.Table.from_pylist(calls, schema=_CALL_SCHEMA)


def insert_calls_table(cursor: duckdb.DuckDBPyConnection, table: pa.Table) -> None:
    """Append a `calls_table` to `llm_calls`."""
    append_table(cursor, "llm_calls", table, CALL_COLUMNS)


def write_calls(cursor: duckdb.DuckDBPyConnection, calls: list[dict]) -> None:
    """Append per-call rows (dicts with the keys of CALL_COLUMNS) to `llm_calls`."""
    if calls:
        insert_calls_table(cursor, calls_table(calls))


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


def record_tables(
    cursor: duckdb.DuckDBPyConnection,
    run_id: str,
    cache: pa.Table,
    calls: pa.Table,
    known_new: bool = False,
) -> None:
    """`record_batch` for rows already in Arrow tables (`cache_table`, `calls_table`): two
    inserts and one usage update, with no Python work per row (`known_new`: see
    `insert_cache_table`)."""
    insert_cache_table(cursor, cache, known_new)
    insert_calls_table(cursor, calls)
    if calls.num_rows == 0:
        return
    fresh = calls.filter(pc.invert(calls["cached"]))

    def total(column: str):
        return pc.sum(fresh[column]).as_py() or 0

    add_run_usage(
        cursor,
        run_id,
        int(total("prompt_tokens")),
        int(total("completion_tokens")),
        float(total("cost_usd")),
    )
