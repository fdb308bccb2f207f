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

A gateway's first call goes alone; the other slots start once it has an answer. So a refused
key (HTTP 401 / 403) or a redirect off the configured origin stops the run
after one request: what was answered is recorded (the refused item with reason `key refused` or
`redirect refused`, the rest `skipped`), then `run` raises `EndpointRefused`. A first rejected
request format is likewise met once, not once per slot.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import duckdb

try:  # what `post` returns unparsed: the HTTP library the openai client is built on
    from httpx2 import Response as _RESPONSE
except ImportError:  # openai 1.x
    from httpx import Response as _RESPONSE

from data_access.store import Store
from data_access.tables import llm_log, llm_modes
from data_access.tables.runs import run_usage
from pipelines.llm import modes, tool_calls
from pipelines.llm.calls import (
    EndpointRefused,
    MalformedReply,
    backoff_s,
    is_transient,
    openai_clients,
    read_message,
    refusal,
    retry_after,
)
from pipelines.llm.config import LLMConfig
from pipelines.llm.failures import failure_reason
from pipelines.llm.recording import FlushClock, cache_entry, call_row
from pipelines.llm.redact import redact
from pipelines.llm.requests import (
    TRUNCATED,
    LLMRequest,
    LLMResult,
    Usage,
    is_free_text,
    parse_reply,
)
from pipelines.llm.shaping import RequestShaper

BatchCallback = Callable[[duckdb.DuckDBPyConnection, list[LLMResult]], None]


class Gateway:
    """Sends request batches for one run and records everything under `run_id`.

    Args:
        store: where the cache, call log and run usage live.
        config: endpoint, model, limits, prices (see `LLMConfig`).
        run_id: the run the calls belong to (made with `data_access.tables.runs.start_run`).
        use_cache: replay cached replies (False forces fresh calls; they are still cached).
        batch_size: results written per transaction (at least).
        min_flush_interval_s: while calls are in flight, batches are written at most this
            often (each write opens the store file; see `recording.FlushClock`).
    """

    # A refusal of the endpoint ends `run` with `EndpointRefused`; a worker's gateway, whose
    # driver writes its rows first, reports it instead (`refused`) and skips what follows.
    raises_refusal = True

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
        self.min_flush_interval_s = min_flush_interval_s
        self.spent = Usage()
        self.write_cpu_s = 0.0  # CPU spent writing batches to the store (benchmarks report it)
        self.stop_reason: str | None = None
        self.refused: str | None = None  # why the endpoint refused the run (EndpointRefused)
        self.shaper = RequestShaper(config)
        self._stop = threading.Event()
        self._by_key: dict[str, LLMRequest] = {}
        self._mode: str | None = None  # loaded on first use (one store read)
        self._remembered: str | None = None
        self._mode_reason: str | None = None
        self._mode_to_save: str | None = None
        self._keys_mode: str | None = None  # the mode `arun` computed the batch's keys in
        self._keys_tool_mode: str | None = None  # (the tool mode, for tool requests)
        self._tools = tool_calls.ToolModeState(config.tool_calls)
        self._answered: asyncio.Event | None = None  # set once the first call has an answer

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

    @property
    def remembered_mode(self) -> str | None:
        """The mode the store remembers for this endpoint and model (None: not negotiated
        yet, or pinned), as this gateway read it or since remembered."""
        _ = self.mode  # (reading it reads the remembered mode, once)
        return self._remembered

    def adopt_mode(self, cursor, mode: str, reason: str | None) -> None:
        """Take up `mode`, which another gateway for this endpoint and model negotiated (a
        worker's, `pipelines.scale.llm_worker`), and remember it in `cursor`'s transaction,
        as this gateway remembers a mode it negotiated itself. Never a stronger mode than the
        current one: a run does not step back up once the server refused a format."""
        if not self.negotiating or modes.weaker(mode, self.mode) != mode:
            return
        self._mode, self._remembered, self._mode_reason = mode, mode, reason
        llm_modes.remember_mode(cursor, self.endpoint, self.config.model, mode, reason)

    @property
    def tool_mode(self) -> str:
        """The tool mode tool requests are sent in now (`pipelines.llm.tool_calls`)."""
        return self._tools.current(self._remembered_tool_mode)

    def _remembered_tool_mode(self) -> str | None:
        if self.store is None:
            return None
        return llm_modes.remembered_tool_mode(self.store, self.endpoint, self.config.model)

    def mode_for(self, request: LLMRequest) -> str:
        """The mode `request` is sent in: the tool mode for a tool request, else the
        structured-output mode."""
        return self.tool_mode if request.tools is not None else self.mode

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
        box: dict = {}

        def target() -> None:
            try:
                box["results"] = asyncio.run(self.arun(requests, on_batch))
            except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
                box["error"] = exc

        worker = threading.Thread(target=target)
        worker.start()
        worker.join()
        if "error" in box:
            raise box["error"]
        return box["results"]

    def stop(self, reason: str = "stopped") -> None:
        """Ask a running batch to send nothing more (in-flight calls finish and are kept)."""
        self.stop_reason = reason
        self._stop.set()

    def key_of(self, request: LLMRequest, mode: str | None = None) -> str:
        """The cache key of a request under this gateway's model and (current) output mode."""
        return self.shaper.key(request, mode or self.mode_for(request))

    def key_family(self, request: LLMRequest):
        """The fast keys of requests like `request` but for their last message's text, in this
        gateway's current mode (`RequestShaper.key_family`; None: use `key_of`)."""
        return self.shaper.key_family(request, self.mode)

    async def arun(
        self, requests: list[LLMRequest], on_batch: BatchCallback | None = None
    ) -> list[LLMResult]:
        """The async form of `run`.

        Raises:
            EndpointRefused: the endpoint refused the key or redirected off its origin; what
                was answered before is recorded.
        """
        results: list[LLMResult | None] = [None] * len(requests)
        pending: list[LLMResult] = []
        # One store open for the remembered mode, the run's spending and the cache replay;
        # released before the network phase so other processes can use the file meanwhile.
        with self.store.session():
            self._keys_mode = mode = self.mode
            if any(r.tools is not None for r in requests):
                self._keys_tool_mode = self.tool_mode
            keys = [
                self.shaper.key(r, mode if r.tools is None else self._keys_tool_mode)
                for r in requests
            ]
            self._by_key = dict(zip(keys, requests))
            self._seed_spent()
            fresh = self._replay_all(requests, keys, results, pending, on_batch)
        if fresh:
            await self._send_all(requests, keys, fresh, results, pending, on_batch)
        self._flush(requests, pending, on_batch)
        if self.refused is not None and self.raises_refusal:
            raise EndpointRefused(self.refused)
        return results  # type: ignore[return-value]

    # -- cache replay ----------------------------------------------------------------------
    def _seed_spent(self) -> None:
        # The budget is per run: a resumed run (a new process) starts from what it has spent.
        with self.store.session() as cursor:
            usage = run_usage(cursor, self.run_id)
        if not self.spent.tokens:
            self.spent = Usage(usage.prompt_tokens, usage.completion_tokens, usage.cost_usd)

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
            mode=self.mode_for(request),
            reason=response.get("reason"),
        )

    # -- calls -----------------------------------------------------------------------------
    async def _send_all(self, requests, keys, fresh, results, pending, on_batch) -> None:
        concurrency = max(1, self.config.concurrency)
        clients, per_client = openai_clients(self.config, concurrency)
        loop = asyncio.get_running_loop()
        clock = FlushClock(self.batch_size, self.min_flush_interval_s)
        todo = iter(fresh)  # shared by the workers: each takes the next index when free
        if self._answered is None:  # once set, it stays set: later batches do not wait
            self._answered = asyncio.Event()
        # Batches are written on one worker thread, in order, so opening the store and
        # writing never stalls the event loop while other requests are in flight.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="gateway-writer") as writer:
            writes = []

            async def worker(slot: int) -> None:
                # One task per concurrency slot, not per request: a queue of slots and a task
                # per item cost more than the call's own bookkeeping.
                client = clients[slot // per_client]
                if slot:  # the first call goes alone (see the module docstring)
                    await self._answered.wait()
                try:
                    for index in todo:
                        result = await self._call(client, requests[index], keys[index])
                        results[index] = result
                        pending.append(result)
                        if clock.due(len(pending)):
                            batch = list(pending)
                            pending.clear()
                            flush = loop.run_in_executor(
                                writer, self._flush, requests, batch, on_batch
                            )
                            writes.append(flush)
                finally:
                    self._answered.set()  # (slot 0 may end without an answer: nothing sent)

            try:
                await asyncio.gather(*(worker(s) for s in range(min(concurrency, len(fresh)))))
            finally:
                for client in clients:
                    await client.close()
            await asyncio.gather(*writes)

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
        mode = self.mode_for(request)
        keys_mode = self._keys_mode if request.tools is None else self._keys_tool_mode
        if mode != keys_mode:  # another request stepped down after keys were made
            result.cache_key = self.key_of(request, mode)
            self._by_key[result.cache_key] = request
        accepted = False  # the server answered 200 in `mode` (whatever the model wrote)
        while True:
            result.attempts += 1
            try:
                await self._attempt(client, request, result, mode)
                accepted = True
                break
            except MalformedReply as exc:
                accepted = True
                result.raw, result.error = redact(exc.raw, self.config.api_key), str(exc)
                if malformed_left <= 0:
                    break
                malformed_left -= 1
            except Exception as exc:  # noqa: BLE001 - every failure becomes a recorded item
                result.error = redact(f"{type(exc).__name__}: {exc}", self.config.api_key)
                if self._refuse(exc, result):
                    break
                if mode == tool_calls.NATIVE and tool_calls.is_tool_rejection(exc):
                    # The server refuses `tools`: the prompt-level fallback, at once.
                    result.error = f"tools rejected: {result.error}"
                    mode = self._tools.step_down(result.error)
                    if mode is None:
                        break
                    result.cache_key = self.key_of(request, mode)
                    self._by_key[result.cache_key] = request
                    continue
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
                if not is_transient(exc) or transient_left <= 0:
                    break
                transient_left -= 1
                pause = backoff_s(self.config, result.attempts, retry_after(exc))
                await asyncio.sleep(pause)
        result.latency_ms = (time.perf_counter() - started) * 1000
        result.mode = mode
        if accepted and request.tools is not None:
            self._tools.accepted(mode)
        elif accepted and self.negotiating and mode == self.mode and mode != self._remembered:
            # Remember a mode the server accepted, even if this model's reply was malformed.
            self._mode_to_save = self._remembered = mode
        if result.ok:
            result.error = None
        else:
            result.reason = failure_reason(result.error)
        return result

    def _refuse(self, exc: Exception, result: LLMResult) -> bool:
        """Stop the run if `exc` is the endpoint refusing it (see `calls.refusal`)."""
        found = refusal(exc)
        if found is None:
            return False
        reason, message = found
        result.error = f"{reason}: {result.error}"
        self.refused = self.refused or message
        self.stop(reason)
        return True

    async def _attempt(self, client, request: LLMRequest, result: LLMResult, mode: str) -> None:
        # The client's generic POST with our JSON bytes: the typed `chat.completions.create`
        # walks messages and the JSON schema through its TypedDict transform on every call,
        # which costs more CPU than the rest of the call. (The client's default headers say
        # `Content-Type: application/json`.)
        try:
            response = await client.post(
                "/chat/completions", cast_to=_RESPONSE, content=self.shaper.body(request, mode)
            )
        finally:
            if self._answered is not None:
                self._answered.set()  # an answer (or a failure) came: the other slots may go
        message, usage, finish = read_message(response.text)
        if request.tools is not None:
            content = tool_calls.reply_text(message)
        else:
            content = message.get("content") or ""
        self._count(result, usage)
        if finish == "length":
            if not is_free_text(request) and request.tools is None:
                raise MalformedReply("truncated reply (finish_reason=length)", content)
            # a free-text reply cut at max_tokens is still what the model said: kept, marked
            result.reason = TRUNCATED
        try:
            result.parsed = parse_reply(request, content)
        except ValueError as exc:
            raise MalformedReply(str(exc), content) from None
        result.status, result.raw = "ok", redact(content, self.config.api_key)

    def _count(self, result: LLMResult, usage) -> None:
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        call = Usage(prompt, completion, self.config.cost(prompt, completion))
        result.usage.add(call)
        self.spent.add(call)

    # -- recording -------------------------------------------------------------------------
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
        started = time.thread_time()
        self.store.in_transaction(write, conflict_retries=4)
        self.write_cpu_s += time.thread_time() - started

    def _save_mode(self, cursor, mode: str | None) -> None:
        # The modes that answered, remembered once per change (read back by `mode`).
        tool_mode, reason = self._tools.take_to_save()
        if tool_mode is not None:
            llm_modes.remember_tool_mode(
                cursor, self.endpoint, self.config.model, tool_mode, reason
            )
        if mode is not None:
            llm_modes.remember_mode(
                cursor, self.endpoint, self.config.model, mode, self._mode_reason
            )

    def _cache_entry(self, result: LLMResult) -> llm_log.CacheEntry:
        request = self._by_key[result.cache_key]
        return cache_entry(self.shaper, request, result, result.mode or self.mode)

    def _call_row(self, result: LLMResult) -> dict:
        return call_row(self.run_id, result)
