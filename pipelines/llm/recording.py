"""What the gateway writes per call: the cache entry of a validated reply, the call-log row,
and when a batch of them is due (DESIGN.md, "LLM calls": every request/response cached)."""

from __future__ import annotations

import time

from data_access.tables import llm_log
from pipelines.llm.requests import LLMRequest, LLMResult, without_inline_images
from pipelines.llm.shaping import RequestShaper


def cache_entry(
    shaper: RequestShaper, request: LLMRequest, result: LLMResult, mode: str
) -> llm_log.CacheEntry:
    """The `llm_cache` row of a validated reply: the request as keyed (inline images stored as
    their hash: the key still covers their bytes), the reply text."""
    return llm_log.CacheEntry(
        result.cache_key,
        shaper.model,
        {
            "model": shaper.model,
            "messages": without_inline_images(shaper.messages(request, mode)),
            "params": shaper.key_params(request, mode),
        },
        {"content": result.raw, **({"reason": result.reason} if result.reason else {})},
        result.usage.prompt_tokens,
        result.usage.completion_tokens,
    )


def call_row(run_id: str, result: LLMResult) -> dict:
    """The `llm_calls` row of one item (`llm_log.CALL_COLUMNS`)."""
    return {
        "run_id": run_id,
        "item_id": result.item_id,
        "cache_key": result.cache_key,
        "cached": result.cached,
        "status": result.status,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "cost_usd": result.usage.cost_usd,
        "latency_ms": result.latency_ms,
        "attempts": result.attempts,
        "error": result.error,
        "raw_reply": None if result.ok else result.raw,
        "reason": result.reason,
    }


class FlushClock:
    """When a batch of results is due while calls are in flight.

    Each write opens the store file, re-checks its metadata (it changed since the last write)
    and checkpoints it: 30-80 ms of CPU. So under fast replies batches also wait for
    `interval_s`; a killed job loses at most that much, or 8 batches, of calls. 2 s saved
    ~0.2-0.9 ms of CPU per call at concurrency 64, but progress then moved in 2-s steps and a
    short job showed none until it ended (the stop and SIGKILL resume tests caught it), so
    the default stays 0.5 s.
    """

    def __init__(self, batch_size: int, interval_s: float) -> None:
        self.batch_size = batch_size
        self.interval_s = interval_s
        self.last = time.monotonic()

    def due(self, n_pending: int) -> bool:
        """True when `n_pending` results should be written now (the clock restarts)."""
        due = n_pending >= 8 * self.batch_size or (
            n_pending >= self.batch_size and time.monotonic() - self.last >= self.interval_s
        )
        if due:
            self.last = time.monotonic()
        return due
