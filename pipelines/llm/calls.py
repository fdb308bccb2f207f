"""One HTTP call's pieces for the gateway: its openai clients, reading a completion, the rules
for what is retried and how long to wait, and the replies that stop a whole run."""

from __future__ import annotations

import json
import random

import openai

from pipelines.llm.config import LLMConfig
from pipelines.llm.http_clients import OffOriginRedirect, http_clients, keep_to_origin, origin

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


class EndpointRefused(Exception):
    """The endpoint refused the run (its key, or a redirect off the configured origin).

    Raised by `Gateway.run` once what was answered is recorded; the message names the endpoint
    and what to change, never the key.
    """


def read_message(text: str) -> tuple[dict, dict, str | None]:
    """(assistant message, usage, finish_reason) of a chat-completion JSON body (the message
    whole: a tool-calling turn's calls are in it).

    Read directly: building the typed ChatCompletion object costs more than the rest of the
    call, and the gateway needs three fields.

    Raises:
        MalformedReply: the body is not a chat completion (carries the body as raw text).
    """
    try:
        body = json.loads(text)
        choice = body["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError("message")
        usage = body.get("usage") or {}
        finish = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise MalformedReply(f"malformed response body: {type(exc).__name__}", text) from None
    return message, usage, finish


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


def refusal(exc: Exception) -> tuple[str, str] | None:
    """(stop reason, what the user reads) when `exc` means no request of the run can succeed.

    A 401 / 403 refuses the key: every later request would be refused too, so the run stops at
    the first. A redirect off the configured origin is never followed. Neither message holds
    the key. None for any other error.
    """
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        endpoint = origin(exc.response.request.url)
        return "key refused", (
            f"the endpoint {endpoint} refused the API key (HTTP {exc.status_code}); the run "
            "stopped at the first refusal. Set STORYSCOPE_LLM_API_KEY (or OPENAI_API_KEY) to "
            "a key it accepts, then resume."
        )
    if isinstance(exc, OffOriginRedirect):
        return "redirect refused", (
            f"{exc}; the run stopped. Set the base URL to the server that answers, then resume."
        )
    return None


def openai_clients(config: LLMConfig, concurrency: int) -> tuple[list[openai.AsyncOpenAI], int]:
    """A run's openai clients, and how many concurrency slots share each one."""
    https, per_client = http_clients(config.http_transport, concurrency, config.timeout_s)
    return [openai_client(config, http) for http in https], per_client


def openai_client(config: LLMConfig, http) -> openai.AsyncOpenAI:
    """The openai client of `config` over the HTTP client `http`, kept to its origin."""
    client = openai.AsyncOpenAI(
        api_key=config.api_key or "not-needed",
        base_url=config.base_url,
        timeout=config.timeout_s,
        max_retries=0,
        http_client=http,
    )
    keep_to_origin(http, client.base_url)  # (the base URL openai resolved, env included)
    return client
