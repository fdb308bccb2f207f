"""The gateway: every model call of StoryScope goes through `Gateway.run` (DESIGN.md, "LLM calls").

A batch of `LLMRequest`s is answered from the store's cache where possible; the rest are sent
to the OpenAI-compatible endpoint with at most `config.concurrency` in flight. 429 (honouring
Retry-After), 5xx, timeouts and dropped connections are retried with exponential backoff;
malformed or truncated replies are retried `parse_retries` times and then returned as failed
items carrying the raw text. Results are written to the store in batches: validated replies
to `llm_cache`, one `llm_calls` row per item, token and cost totals on the run, and, through
`on_batch`, the caller's own rows in the same transaction (so a killed job loses at most one
batch and never half of one). Once the run's budget is spent no new request is sent and the
remaining items come back `skipped`.

Structured output is negotiated per (base URL, model) when `config.structured` is `auto` (the
default): the remembered mode, else `json_schema`; a rejection that names the request format
moves every later attempt to the next mode at once (no retry, no backoff), and the mode that
answered is remembered in the store (`llm_endpoint_modes`). A pinned mode is never changed,
and its rejection fails the item without retries.
"""

from __future__ import annotations

import asyncio
import json
import random
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import duckdb
import openai

try:  # the HTTP library the installed openai client is built on
    import httpx2 as _http
except ImportError:  # openai 1.x
    import httpx as _http

from data_access import llm_log, llm_modes
from data_access.store import Store
from pipelines.llm import modes
from pipelines.llm.config import LLMConfig
from pipelines.llm.failures import failure_reason
from pipelines.llm.redact import redact
from pipelines.llm.requests import (
    LLMRequest,
    LLMResult,
    Usage,
    cache_key,
    canonical_json,
    parse_reply,
    response_format,
    schema_of,
)
from pipelines.llm.transport import LeanAsyncTransport

BatchCallback = Callable[[duckdb.DuckDBPyConnection, list[LLMResult]], None]
_CONNECTIONS_PER_CLIENT = 8
_TRANSIENT = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)


_FORMAT_JSON: dict[int, tuple[dict, str]] = {}


def _format_json(key: int, fmt: dict) -> str:
    """Canonical JSON of a response_format dict, memoised per (cached) dict object."""
    found = _FORMAT_JSON.get(key)
    if found is None or found[0] is not fmt:
        found = (fmt, canonical_json(fmt))
        _FORMAT_JSON[key] = found
    return found[1]


class _Malformed(Exception):
    """A reply arrived but is not usable (bad JSON, failed validation, cut short)."""

    def __init__(self, message: str, raw: str | None) -> None:
        super().__init__(message)
        self.raw = raw


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _is_transient(exc: Exception) -> bool:
    if isinstance(exc, _TRANSIENT):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


class Gateway:
    """Sends request batches for one run and records everything under `run_id`.

    Args:
        store: where the cache, call log and run usage live.
        config: endpoint, model, limits, prices (see `LLMConfig`).
        run_id: the run the calls belong to (made with `data_access.runs.start_run`).
        use_cache: replay cached replies (False forces fresh calls; they are still cached).
        batch_size: results written per transaction (at least).
        min_flush_interval_s: while calls are in flight, batches are written at most this
            often (each write opens the store file).
    """

    def __init__(
        self,
        store: Store,
        config: LLMConfig,
        run_id: str,
        use_cache: bool = True,
        batch_size: int = 64,
        min_flush_interval_s: float = 0.5,
    ) -> None:
        self.store = store
        self.config = config
        self.run_id = run_id
        self.use_cache = use_cache
        self.batch_size = batch_size
        self.spent = Usage()
        self.stop_reason: str | None = None
        self._stop = threading.Event()
        self._by_key: dict[str, LLMRequest] = {}
        self.min_flush_interval_s = min_flush_interval_s
        self._last_flush = time.monotonic()
        self._mode: str | None = None  # loaded on first use (one store read)
        self._remembered: str | None = None
        self._mode_reason: str | None = None
        self._mode_to_save: str | None = None
        self._keys_mode: str | None = None  # the mode `arun` computed the batch's keys in

    # -- structured-output mode ------------------------------------------------------------
    @property
    def negotiating(self) -> bool:
        """True when the mode is negotiated (config `auto`), False when pinned."""
        return self.config.structured == modes.AUTO

    @property
    def endpoint(self) -> str:
        """The endpoint's base URL as remembered (the openai default when none is set)."""
        return self.config.base_url or "https://api.openai.com/v1"

    @property
    def mode(self) -> str:
        """The structured-output mode requests are sent in now."""
        if self._mode is None:
            if not self.negotiating:
                self._mode = self.config.structured
            elif self.store is not None:  # (a store-less gateway only computes keys)
                self._remembered = llm_modes.remembered_mode(
                    self.store, self.endpoint, self.config.model
                )
                self._mode = self._remembered or modes.NEGOTIATED[0]
        return self._mode

    def mode_info(self) -> dict:
        """For dry runs: the mode, and whether it was negotiated before or is pinned."""
        mode = self.mode
        if not self.negotiating:
            source = "pinned by configuration"
        elif self._remembered:
            source = "remembered for this endpoint and model"
        else:
            source = "first try; not negotiated with this endpoint yet"
        return {"mode": mode, "mode_source": source}

    def _step_down(self, tried: str, error: str) -> str | None:
        """After `tried` was rejected: the mode to use next (None when nothing is left)."""
        following = modes.next_mode(tried)
        if not self.negotiating or following is None:
            return None
        if modes.weaker(following, self.mode) == following and following != self.mode:
            self._mode, self._mode_reason = following, error
        return self.mode

    # -- public API ----------------------------------------------------------------------
    def run(
        self, requests: Iterable[LLMRequest], on_batch: BatchCallback | None = None
    ) -> list[LLMResult]:
        """Answer every request (blocking); results come back in request order."""
        requests = list(requests)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.arun(requests, on_batch))
        # Called from inside an event loop (e.g. a notebook): run on a helper thread.
        box: list = []
        worker = threading.Thread(
            target=lambda: box.append(asyncio.run(self.arun(requests, on_batch)))
        )
        worker.start()
        worker.join()
        return box[0]

    def stop(self, reason: str = "stopped") -> None:
        """Ask a running batch to send nothing more (in-flight calls finish and are kept)."""
        self.stop_reason = reason
        self._stop.set()

    def key_of(self, request: LLMRequest, mode: str | None = None) -> str:
        """The cache key of a request under this gateway's model and (current) output mode."""
        mode = mode or self.mode
        fmt = response_format(request, mode)
        request_params = self._params(request)
        params = canonical_json(request_params) if request_params else "{}"
        if fmt is not None:
            # Same canonical JSON as the full params dict, with the (cached) schema JSON
            # spliced in rather than re-encoded for every request.
            fmt_json = _format_json(id(fmt), fmt)
            merged = dict(request_params)
            merged["response_format"] = None
            params = canonical_json(merged).replace(
                '"response_format":null', f'"response_format":{fmt_json}', 1
            )
        return cache_key(self.config.model, self._messages(request, mode), params)

    def _params(self, request: LLMRequest) -> dict:
        # The configured token cap applies where the step set none.
        cap = self.config.max_tokens
        if cap is None or "max_tokens" in request.params:
            return request.params
        return {**request.params, "max_tokens": cap}

    def _messages(self, request: LLMRequest, mode: str) -> list[dict]:
        if mode == "prompt" and request.schema is not None:
            return modes.with_json_instructions(request.messages, schema_of(request))
        return request.messages

    async def arun(
        self, requests: list[LLMRequest], on_batch: BatchCallback | None = None
    ) -> list[LLMResult]:
        """The async form of `run`."""
        with self.store.session():
            mode = self.mode  # one store read for the remembered mode
        self._keys_mode = mode
        keys = [self.key_of(r, mode) for r in requests]
        self._by_key = dict(zip(keys, requests))
        results: list[LLMResult | None] = [None] * len(requests)
        pending: list[LLMResult] = []
        # Hold the store open while replaying from the cache (one open, not one per batch);
        # release it before the network phase so other processes can use the file meanwhile.
        with self.store.session():
            self._seed_spent()
            fresh = self._replay_all(requests, keys, results, pending, on_batch)
        if fresh:
            await self._send_all(requests, keys, fresh, results, pending, on_batch)
        self._flush(requests, pending, on_batch)
        return results  # type: ignore[return-value]

    # -- internals -------------------------------------------------------------------------
    def _key_params(self, request: LLMRequest, mode: str) -> dict:
        params = dict(self._params(request))
        fmt = response_format(request, mode)
        if fmt is not None:
            params["response_format"] = fmt
        return params

    def _seed_spent(self) -> None:
        # The budget is per run: a resumed run (a new process) starts from what it has spent.
        usage = llm_log.run_usage(self.store, self.run_id)
        if usage and not self.spent.tokens:
            self.spent = Usage(
                int(usage["prompt_tokens"] or 0),
                int(usage["completion_tokens"] or 0),
                float(usage["cost_usd"] or 0),
            )

    def _replay_all(self, requests, keys, results, pending, on_batch) -> list[int]:
        """Fill `results` from the cache; return the indices that need a call."""
        cached = self._lookup(keys) if self.use_cache else {}
        fresh = []
        for index, (request, key) in enumerate(zip(requests, keys)):
            hit = self._replay(request, key, cached.get(key))
            if hit is None:
                fresh.append(index)
                continue
            results[index] = hit
            pending.append(hit)
            if len(pending) >= self.batch_size:
                self._flush(requests, pending, on_batch)
        self._flush(requests, pending, on_batch)
        return fresh

    def _lookup(self, keys: list[str]) -> dict[str, dict]:
        """Cached responses by key (the store's cache; a worker's gateway has its own)."""
        return llm_log.lookup_cache(self.store, keys)

    def _replay(self, request: LLMRequest, key: str, response: dict | None) -> LLMResult | None:
        if response is None:
            return None
        try:
            parsed = parse_reply(request, response["content"])
        except ValueError:
            return None  # the step's schema changed since: ask again
        return LLMResult(
            request.item_id,
            "ok",
            parsed,
            response["content"],
            cached=True,
            cache_key=key,
            mode=self.mode,
        )

    async def _send_all(self, requests, keys, fresh, results, pending, on_batch) -> None:
        concurrency = max(1, self.config.concurrency)
        clients, per_client = self._clients(concurrency)
        slots: asyncio.Queue[int] = asyncio.Queue()
        for slot in range(concurrency):
            slots.put_nowait(slot)
        loop = asyncio.get_running_loop()
        # Batches are written on one worker thread, in order, so opening the store and
        # writing never stalls the event loop while other requests are in flight.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="gateway-writer") as writer:
            writes = []

            async def one(index: int) -> None:
                slot = await slots.get()
                try:
                    client = clients[slot // per_client]
                    result = await self._call(client, requests[index], keys[index])
                finally:
                    slots.put_nowait(slot)
                results[index] = result
                pending.append(result)
                if self._batch_due(len(pending)):
                    batch = list(pending)
                    pending.clear()
                    self._last_flush = time.monotonic()
                    writes.append(
                        loop.run_in_executor(writer, self._flush, requests, batch, on_batch)
                    )

            try:
                await asyncio.gather(*(one(i) for i in fresh))
            finally:
                for client in clients:
                    await client.close()
            await asyncio.gather(*writes)

    def _batch_due(self, n_pending: int) -> bool:
        # Each write opens the store file, re-checks its metadata (it changed since the last
        # write) and checkpoints it: 30-80 ms of CPU. So under fast replies batches also wait
        # for `min_flush_interval_s`; a killed job loses at most that much, or 8 batches, of
        # calls. 2 s saved ~0.2-0.9 ms of CPU per call at concurrency 64, but progress then
        # moved in 2-s steps and a short job showed none until it ended (the stop and SIGKILL
        # resume tests caught it), so the default stays 0.5 s.
        if n_pending >= 8 * self.batch_size:
            return True
        return (
            n_pending >= self.batch_size
            and time.monotonic() - self._last_flush >= self.min_flush_interval_s
        )

    def _clients(self, concurrency: int) -> tuple[list[openai.AsyncOpenAI], int]:
        """The run's openai clients, and how many concurrency slots share each one."""
        tls = ssl.create_default_context()  # CA certificates loaded once, not per client
        if self.config.http_transport == "lean":
            # One client; its transport keeps up to `concurrency` idle keep-alive connections.
            # httpcore's pool and stream layers cost ~2/3 of the client CPU per call.
            transport = LeanAsyncTransport(tls, max_idle=concurrency)
            return [self._client(tls, transport)], concurrency
        # The library's own transport: several small clients, because httpcore's pool scans
        # every connection on each request and release (eight pools of 8 beat one of 64).
        n_clients = -(-concurrency // _CONNECTIONS_PER_CLIENT)
        return [self._client(tls) for _ in range(n_clients)], _CONNECTIONS_PER_CLIENT

    def _client(self, tls: ssl.SSLContext, transport=None) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self.config.api_key or "not-needed",
            base_url=self.config.base_url,
            timeout=self.config.timeout_s,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=tls, transport=transport),
        )

    def _budget_left(self) -> bool:
        cfg = self.config
        if cfg.budget_usd is not None and self.spent.cost_usd >= cfg.budget_usd:
            self.stop("budget")
        if cfg.budget_tokens is not None and self.spent.tokens >= cfg.budget_tokens:
            self.stop("budget")
        return not self._stop.is_set()

    async def _call(self, client, request: LLMRequest, key: str) -> LLMResult:
        result = LLMResult(request.item_id, "failed", cache_key=key)
        if not self._budget_left():
            result.status, result.error = "skipped", f"not sent: {self.stop_reason}"
            return result
        started = time.perf_counter()
        transient_left, malformed_left = self.config.max_retries, self.config.parse_retries
        mode = self.mode
        if mode != self._keys_mode:  # another request stepped down after keys were made
            result.cache_key = self.key_of(request, mode)
            self._by_key[result.cache_key] = request
        accepted = False  # the server answered 200 in `mode` (whatever the model wrote)
        while True:
            result.attempts += 1
            try:
                await self._attempt(client, request, result, mode)
                accepted = True
                break
            except _Malformed as exc:
                accepted = True
                result.raw, result.error = redact(exc.raw, self.config.api_key), str(exc)
                if malformed_left <= 0:
                    break
                malformed_left -= 1
            except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded item
                result.error = redact(f"{type(exc).__name__}: {exc}", self.config.api_key)
                if mode in modes.NEGOTIATED[:-1] and modes.is_format_rejection(exc):
                    # Not transient: the server refuses this request format. Step down at
                    # once (no backoff); a pinned mode fails the item here.
                    result.error = f"format rejected ({mode}): {result.error}"
                    mode = self._step_down(mode, result.error)
                    if mode is None:
                        break
                    result.cache_key = self.key_of(request, mode)
                    self._by_key[result.cache_key] = request
                    continue
                if not _is_transient(exc) or transient_left <= 0:
                    break
                transient_left -= 1
                await asyncio.sleep(self._backoff(result.attempts, _retry_after(exc)))
        result.latency_ms = (time.perf_counter() - started) * 1000
        result.mode = mode
        if accepted and self.negotiating and mode == self.mode and mode != self._remembered:
            # Remember a mode the server accepted, even if this model's reply was malformed.
            self._mode_to_save = self._remembered = mode
        if result.ok:
            result.error = None
        else:
            result.reason = failure_reason(result.error)
        return result

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.config.backoff_max_s)
        base = self.config.backoff_base_s * 2 ** (attempt - 1)
        return min(base, self.config.backoff_max_s) * (0.5 + random.random() / 2)

    async def _attempt(self, client, request: LLMRequest, result: LLMResult, mode: str) -> None:
        messages = self._messages(request, mode)
        body = {"model": self.config.model, "messages": messages, **self._params(request)}
        fmt = response_format(request, mode)
        if fmt is not None:
            body["response_format"] = fmt
        # The client's generic POST sends our plain-JSON chat body as is. The typed
        # `chat.completions.create` walks messages and the JSON schema through its TypedDict
        # transform on every call, which costs more CPU than the rest of the call.
        response = await client.post("/chat/completions", cast_to=_http.Response, body=body)
        text = response.text
        try:
            # Read the completion JSON directly: building the typed ChatCompletion object
            # costs more than the rest of the call, and we need three fields.
            body = json.loads(text)
            choice = body["choices"][0]
            content = choice["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise _Malformed(f"malformed response body: {type(exc).__name__}", text) from None
        self._count(result, body.get("usage") or {})
        if choice.get("finish_reason") == "length":
            raise _Malformed("truncated reply (finish_reason=length)", content)
        try:
            result.parsed = parse_reply(request, content)
        except ValueError as exc:
            raise _Malformed(str(exc), content) from None
        result.status, result.raw = "ok", redact(content, self.config.api_key)

    def _count(self, result: LLMResult, usage) -> None:
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        call = Usage(prompt, completion, self.config.cost(prompt, completion))
        result.usage.add(call)
        self.spent.add(call)

    def _flush(self, requests, pending: list[LLMResult], on_batch) -> None:
        if not pending:
            return
        batch = list(pending)
        pending.clear()
        entries = [self._cache_entry(r) for r in batch if r.ok and not r.cached]
        calls = [self._call_row(r) for r in batch if r.status != "skipped"]
        mode_to_save, self._mode_to_save = self._mode_to_save, None

        def write(cursor) -> None:
            llm_log.record_batch(cursor, self.run_id, entries, calls)
            self._save_mode(cursor, mode_to_save)
            if on_batch is not None:
                on_batch(cursor, batch)

        # Another writer may touch the same row (e.g. the run's usage); a conflicting batch is
        # rolled back whole, so writing it again is safe.
        self.store.in_transaction(write, conflict_retries=4)

    def _save_mode(self, cursor, mode: str | None) -> None:
        # The mode that answered, remembered once per change (read back by `mode`).
        if mode is not None:
            llm_modes.remember_mode(
                cursor, self.endpoint, self.config.model, mode, self._mode_reason
            )

    def _cache_entry(self, result: LLMResult) -> llm_log.CacheEntry:
        request = self._by_key[result.cache_key]
        mode = result.mode or self.mode
        params = self._key_params(request, mode)
        return llm_log.CacheEntry(
            result.cache_key,
            self.config.model,
            {
                "model": self.config.model,
                "messages": self._messages(request, mode),
                "params": params,
            },
            {"content": result.raw},
            result.usage.prompt_tokens,
            result.usage.completion_tokens,
        )

    def _call_row(self, result: LLMResult) -> dict:
        return {
            "run_id": self.run_id,
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
