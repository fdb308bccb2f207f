"""One HTTP call's pieces for the gateway: its openai clients, reading a completion, and the
rules for what is retried and how long to wait."""

from __future__ import annotations

import json
import random
import ssl

import openai

from pipelines.llm.config import LLMConfig
from pipelines.llm.transport import LeanAsyncClient, LeanAsyncTransport

_CONNECTIONS_PER_CLIENT = 8
_TRANSIENT = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)


class MalformedReply(Exception):
    """A reply arrived but is not usable (bad JSON, failed validation, cut short)."""

    def __init__(self, message: str, raw: str | None) -> None:
        super().__init__(message)
        self.raw = raw


def read_completion(text: str) -> tuple[str, dict, str | None]:
    """(content, usage, finish_reason) of a chat-completion JSON body.

    Read directly: building the typed ChatCompletion object costs more than the rest of the
    call, and the gateway needs three fields.

    Raises:
        MalformedReply: the body is not a chat completion (carries the body as raw text).
    """
    try:
        body = json.loads(text)
        choice = body["choices"][0]
        content = choice["message"].get("content") or ""
        usage = body.get("usage") or {}
        finish = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise MalformedReply(f"malformed response body: {type(exc).__name__}", text) from None
    return content, usage, finish


def retry_after(exc: Exception) -> float | None:
    """The seconds a 429/503 reply asked to wait (its Retry-After header), if any."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def is_transient(exc: Exception) -> bool:
    """Timeouts, dropped connections, 429 and 5xx: worth sending again after a pause."""
    if isinstance(exc, _TRANSIENT):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def backoff_s(config: LLMConfig, attempt: int, asked: float | None) -> float:
    """Exponential backoff with jitter, or what the server asked for (both capped)."""
    if asked is not None:
        return min(asked, config.backoff_max_s)
    base = config.backoff_base_s * 2 ** (attempt - 1)
    return min(base, config.backoff_max_s) * (0.5 + random.random() / 2)


def openai_clients(config: LLMConfig, concurrency: int) -> tuple[list[openai.AsyncOpenAI], int]:
    """A run's openai clients, and how many concurrency slots share each one."""
    if config.http_transport == "lean":
        # One client; its transport keeps up to `concurrency` idle keep-alive connections
        # (and loads CA certificates only when an https origin needs them).
        # httpcore's pool and stream layers cost ~2/3 of the client CPU per call.
        transport = LeanAsyncTransport(max_idle=concurrency)
        return [_client(config, LeanAsyncClient(transport=transport))], concurrency
    tls = ssl.create_default_context()  # CA certificates loaded once, not per client
    # The library's own transport: several small clients, because httpcore's pool scans
    # every connection on each request and release (eight pools of 8 beat one of 64).
    n_clients = -(-concurrency // _CONNECTIONS_PER_CLIENT)
    clients = [openai.DefaultAsyncHttpxClient(verify=tls) for _ in range(n_clients)]
    return [_client(config, http) for http in clients], _CONNECTIONS_PER_CLIENT


def _client(config: LLMConfig, http) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=config.api_key or "not-needed",
        base_url=config.base_url,
        timeout=config.timeout_s,
        max_retries=0,
        http_client=http,
    )
