"""Gateway configuration: endpoint, model, key, limits and prices.

Precedence (highest first): explicit overrides (CLI options) > environment variables >
`.streamlit/secrets.toml` > defaults. The key is held only here and handed only to the HTTP
client; `repr()`, `public_dict()` and every error path leave it out.

Environment variables: STORYSCOPE_LLM_BASE_URL, STORYSCOPE_LLM_MODEL, STORYSCOPE_LLM_API_KEY
(else OPENAI_API_KEY), STORYSCOPE_LLM_CONCURRENCY, STORYSCOPE_LLM_TIMEOUT,
STORYSCOPE_LLM_MAX_RETRIES, STORYSCOPE_LLM_BUDGET_USD, STORYSCOPE_LLM_BUDGET_TOKENS,
STORYSCOPE_LLM_PRICE_IN, STORYSCOPE_LLM_PRICE_OUT (USD per million tokens),
STORYSCOPE_LLM_STRUCTURED (auto | json_schema | json_object | prompt | none),
STORYSCOPE_LLM_MAX_TOKENS, STORYSCOPE_LLM_HTTP_TRANSPORT (aiohttp | httpx).
secrets.toml: the same names as keys of an `[llm]` table (`base_url`, `model`, `api_key`, ...)
or as top-level keys (`STORYSCOPE_LLM_MODEL = "..."`, `OPENAI_API_KEY = "..."`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pipelines.numeric_settings import ENV_RANGES, checked_number

SECRETS_FILE = Path(".streamlit") / "secrets.toml"
DEFAULT_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class LLMConfig:
    """Where and how the gateway calls a model.

    Attributes:
        base_url: OpenAI-compatible endpoint (None: the openai library default).
        model: model name sent with every request; part of the cache key.
        api_key: bearer key; never stored, logged or shown.
        concurrency: requests in flight at once.
        timeout_s: a call's total deadline, request sent to reply read (and each read's).
        max_retries: transport retries (429, 5xx, timeouts, connection errors).
        parse_retries: extra attempts when a reply is malformed or truncated.
        budget_usd / budget_tokens: the run stops sending new requests once either is spent.
        price_in_per_mtok / price_out_per_mtok: USD per million prompt / completion tokens.
        structured: how structured output is requested: `auto` (negotiated per endpoint and
            model, remembered in the store; see `pipelines.llm.modes`), or pinned to
            `json_schema`, `json_object` (with the schema attached), `prompt` (schema as
            plain instructions, tolerant parsing) or `none` (nothing added; the step's prompt
            asks for JSON). Replies are validated in every mode.
        tool_calls: how an agent's tools are offered: `auto` (OpenAI `tools`, stepping down to
            the prompt-level fallback when the server refuses them; remembered per endpoint
            and model), or pinned to `native` or `prompt` (`pipelines.llm.tool_calls`).
        max_tokens: a completion-token cap added to requests that set none (small local
            models may otherwise write until the context is full); part of the cache key.
        backoff_base_s / backoff_max_s: exponential backoff when no Retry-After is given.
        http_transport: what carries the openai client's HTTP: `aiohttp` (openai's
            `DefaultAioHttpClient`, `pipelines.llm.http_clients`) or `httpx` (the HTTP
            library's default transport, e.g. for HTTP/2 gateways).
    """

    base_url: str | None = None
    model: str = DEFAULT_MODEL
    api_key: str | None = field(default=None, repr=False)
    concurrency: int = 8
    timeout_s: float = 60.0
    max_retries: int = 4
    parse_retries: int = 2
    budget_usd: float | None = None
    budget_tokens: int | None = None
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0
    structured: str = "auto"
    tool_calls: str = "auto"
    max_tokens: int | None = None
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    http_transport: str = "aiohttp"

    def public_dict(self) -> dict[str, Any]:
        """Every setting except the key (safe for run params, job records and logs)."""
        settings = asdict(self)
        settings.pop("api_key")
        return settings

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for a call with these token counts."""
        return (
            prompt_tokens * self.price_in_per_mtok + completion_tokens * self.price_out_per_mtok
        ) / 1e6


_ENV_NAMES = {
    "base_url": "STORYSCOPE_LLM_BASE_URL",
    "model": "STORYSCOPE_LLM_MODEL",
    "api_key": "STORYSCOPE_LLM_API_KEY",
    "concurrency": "STORYSCOPE_LLM_CONCURRENCY",
    "timeout_s": "STORYSCOPE_LLM_TIMEOUT",
    "max_retries": "STORYSCOPE_LLM_MAX_RETRIES",
    "budget_usd": "STORYSCOPE_LLM_BUDGET_USD",
    "budget_tokens": "STORYSCOPE_LLM_BUDGET_TOKENS",
    "price_in_per_mtok": "STORYSCOPE_LLM_PRICE_IN",
    "price_out_per_mtok": "STORYSCOPE_LLM_PRICE_OUT",
    "structured": "STORYSCOPE_LLM_STRUCTURED",
    "tool_calls": "STORYSCOPE_LLM_TOOL_CALLS",
    "max_tokens": "STORYSCOPE_LLM_MAX_TOKENS",
    "http_transport": "STORYSCOPE_LLM_HTTP_TRANSPORT",
}


def _from_secrets(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    found = {k: v for k, v in (data.get("llm") or {}).items() if k in _ENV_NAMES}
    for name, env in _ENV_NAMES.items():
        if env in data:
            found[name] = data[env]
    if "api_key" not in found and "OPENAI_API_KEY" in data:
        found["api_key"] = data["OPENAI_API_KEY"]
    return found


def _from_env() -> dict[str, Any]:
    found = {name: os.environ[env] for name, env in _ENV_NAMES.items() if os.environ.get(env)}
    if "api_key" not in found and os.environ.get("OPENAI_API_KEY"):
        found["api_key"] = os.environ["OPENAI_API_KEY"]
    return found


def _coerce(values: dict[str, Any]) -> dict[str, Any]:
    types = {f.name: f.type for f in fields(LLMConfig)}
    coerced = {}
    for name, value in values.items():
        kind = str(types[name])
        if value is None or value == "":
            continue
        try:
            if "int" in kind and "float" not in kind:
                value = int(value)
            elif "float" in kind:
                value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"invalid LLM setting {name!r}: expected {kind}") from None
        env = _ENV_NAMES.get(name, "")
        if env in ENV_RANGES:  # a NaN, negative or huge timeout would never expire
            checked_number(f"{env} ({name})", value, ENV_RANGES[env])
        coerced[name] = value
    return coerced


def load_config(
    overrides: dict[str, Any] | None = None, secrets_path: Path | None = None
) -> LLMConfig:
    """Build the config from secrets.toml, then env vars, then `overrides` (None values skipped).

    Args:
        overrides: CLI options by field name; None means "not given".
        secrets_path: the secrets file (default `.streamlit/secrets.toml` in the cwd).

    Raises:
        ValueError: a setting has the wrong type (the message names the setting, not its value).
    """
    merged: dict[str, Any] = {}
    for layer in (_from_secrets(secrets_path or SECRETS_FILE), _from_env(), overrides or {}):
        merged.update({k: v for k, v in layer.items() if v is not None})
    if merged.get("http_transport") == "lean":  # the h11 transport's old name:
        merged["http_transport"] = "aiohttp"  # job params saved before still resume
    config = replace(LLMConfig(), **_coerce(merged))
    if config.structured not in _STRUCTURED:
        raise ValueError(
            f"invalid LLM setting 'structured': expected one of {', '.join(_STRUCTURED)}"
        )
    if config.tool_calls not in _TOOL_CALLS:
        raise ValueError(
            f"invalid LLM setting 'tool_calls': expected one of {', '.join(_TOOL_CALLS)}"
        )
    if config.http_transport not in _TRANSPORTS:
        raise ValueError(
            f"invalid LLM setting 'http_transport': expected one of {', '.join(_TRANSPORTS)}"
        )
    return config


_STRUCTURED = ("auto", "json_schema", "json_object", "prompt", "none")
_TRANSPORTS = ("aiohttp", "httpx")
_TOOL_CALLS = ("auto", "native", "prompt")  # pipelines.llm.tool_calls.CONFIG_CHOICES
