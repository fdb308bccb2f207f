"""What the gateway takes and gives back: requests, results, cache keys, reply parsing."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

Parser = Callable[[str], Any]


@dataclass
class LLMRequest:
    """One item to send.

    Attributes:
        item_id: the caller's id for the item (answer id, scene id, ...); logged per call.
        messages: OpenAI chat messages.
        schema: pydantic model the reply must validate against (and, with
            `structured="json_schema"`, the schema sent to the endpoint).
        parse: a function from reply text to a value that raises ValueError on a malformed
            reply; given together with `schema` it receives the validated model instead.
        params: sampling parameters (temperature, max_tokens, seed, ...); part of the cache key.
    """

    item_id: str
    messages: list[dict]
    schema: type[BaseModel] | None = None
    parse: Parser | None = None
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Usage:
    """Tokens and cost of one call or a whole run."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class LLMResult:
    """The outcome of one request.

    Attributes:
        status: `ok`, `failed` (after retries; `raw` holds the last reply text) or `skipped`
            (not sent: the run's budget was spent or the run was stopped).
        parsed: the validated value (pydantic instance or the parse function's result).
        raw: the reply text as received (keys redacted).
        cached: True when replayed from the store's cache.
    """

    item_id: str
    status: str
    parsed: Any = None
    raw: str | None = None
    error: str | None = None
    cached: bool = False
    usage: Usage = field(default_factory=Usage)
    attempts: int = 0
    latency_ms: float = 0.0
    cache_key: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def cache_key(model: str, messages: list[dict], params: dict[str, Any] | str) -> str:
    """sha256 over (model, messages, params), each part length-prefixed so no two different
    requests share a key; params are canonical JSON (sorted keys; a pre-encoded string is
    taken as is). Streaming the message texts into the hash instead of JSON-encoding them
    keeps cache replay fast."""
    if not isinstance(params, str):
        params = canonical_json(params)
    parts = [model]
    for message in messages:
        content = message.get("content")
        extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        parts += [
            str(message.get("role", "")),
            content if isinstance(content, str) else json.dumps(content, sort_keys=True),
            json.dumps(extra, sort_keys=True) if extra else "",
        ]
    parts.append(params)
    chunks = []
    for part in parts:
        data = part.encode()
        chunks += [len(data).to_bytes(8, "big"), data]
    return hashlib.sha256(b"".join(chunks)).hexdigest()


def canonical_json(value: Any) -> str:
    """Sorted-key, compact JSON (the form hashed into cache keys)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def strip_fences(text: str) -> str:
    """The text inside a ```json fence, if the model wrapped its JSON in one."""
    match = _FENCE.match(text)
    return match.group(1) if match else text


def parse_reply(request: LLMRequest, text: str) -> Any:
    """Validate reply text against the request's schema or parse function.

    Raises:
        ValueError: the reply is not what the step expects (message says why, briefly).
    """
    if request.schema is not None:
        try:
            value = request.schema.model_validate_json(strip_fences(text))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "reply"
            raise ValueError(f"malformed reply: {where}: {first.get('msg')}") from None
        # With both, `parse` checks the validated value (e.g. every claim labelled once).
        return request.parse(value) if request.parse is not None else value
    if request.parse is not None:
        return request.parse(text)
    return text


def response_format(request: LLMRequest, mode: str) -> dict | None:
    """The `response_format` request field for a structured-output mode."""
    if request.schema is None or mode == "none":
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    return _json_schema_format(request.schema)


@lru_cache(maxsize=256)
def _json_schema_format(schema: type[BaseModel]) -> dict:
    # Building a JSON schema costs milliseconds; a batch shares one schema class.
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
    }
