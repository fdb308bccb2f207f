"""What the gateway takes and gives back: requests, results, cache keys, reply parsing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

from pipelines.llm.json_text import first_json_value, strip_fences
from pipelines.llm.tool_calls import parse_tool_reply

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
        json_schema: the JSON schema sent to the endpoint instead of `schema`'s own, when a
            tighter one helps a grammar-constrained small model (e.g. exactly N judge labels).
            Share one dict object between requests of the same shape: it is memoised by id.
        tools: OpenAI `tools` entries (an agent's turn); the reply is then a tool reply (text
            or calls, `pipelines.llm.tool_calls`), sent in the endpoint's tool mode.
    """

    item_id: str
    messages: list[dict]
    schema: type[BaseModel] | None = None
    parse: Parser | None = None
    params: dict[str, Any] = field(default_factory=dict)
    json_schema: dict | None = None
    tools: list[dict] | None = None


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
        mode: the structured-output mode the reply was asked in (see `modes`).
        reason: for a failed item, a short failure category (see `failures.failure_reason`).
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
    mode: str | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# The reason an ok free-text result carries when the reply was cut at max_tokens.
TRUNCATED = "truncated at max_tokens"


def is_free_text(request: LLMRequest) -> bool:
    """A request whose reply is text as the model wrote it (no schema, no parse function, no
    tools)."""
    return request.schema is None and request.parse is None and request.tools is None


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
    return hashlib.sha256(b"".join(key_part(part) for part in parts)).hexdigest()


def without_inline_images(messages: list[dict]) -> list[dict]:
    """`messages` with every inline image (a `data:` URL of an image part) replaced by the
    sha256 of its URL, so a cached request with video frames does not store the frames again;
    messages without image parts are returned as they are."""
    if all(isinstance(m.get("content"), str | None) for m in messages):
        return messages
    return [_compact_message(m) for m in messages]


def _compact_message(message: dict) -> dict:
    content = message.get("content")
    if isinstance(content, str | None):
        return message
    return {**message, "content": [_compact_part(part) for part in content]}


def _compact_part(part: Any) -> Any:
    if not isinstance(part, dict) or part.get("type") != "image_url":
        return part
    url = str((part.get("image_url") or {}).get("url", ""))
    if not url.startswith("data:"):
        return part
    digest = hashlib.sha256(url.encode()).hexdigest()
    return {"type": "image_url", "image_url": {"url": f"inline-image:sha256:{digest}"}}


def key_part(text: str) -> bytes:
    """One part of a cache key's hash input, length-prefixed (`cache_key`; a key family's
    fast keys hash the same parts, `shaping.KeyFamily`)."""
    data = text.encode()
    return len(data).to_bytes(8, "big") + data


def canonical_json(value: Any) -> str:
    """Sorted-key, compact JSON (the form hashed into cache keys)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _validate(schema: type[BaseModel], text: str) -> BaseModel:
    try:
        return schema.model_validate_json(strip_fences(text))
    except ValidationError as exc:
        # Tolerant parsing (prompt mode, chatty small models): the first JSON value in the
        # text, when the whole text is not the reply.
        embedded = first_json_value(text)
        if embedded is not None and embedded != text.strip():
            try:
                return schema.model_validate_json(embedded)
            except ValidationError:
                pass
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "reply"
        raise ValueError(f"malformed reply: {where}: {first.get('msg')}") from None


def parse_reply(request: LLMRequest, text: str) -> Any:
    """Validate reply text against the request's schema or parse function.

    Raises:
        ValueError: the reply is not what the step expects (message says why, briefly).
    """
    if request.schema is not None:
        value = _validate(request.schema, text)
        # With both, `parse` checks the validated value (e.g. every claim labelled once).
        return request.parse(value) if request.parse is not None else value
    if request.parse is not None:
        return request.parse(text)
    if request.tools is not None:
        return parse_tool_reply(text)
    return text


def schema_of(request: LLMRequest) -> dict | None:
    """The JSON schema the endpoint is asked for (the request's own, else its model's)."""
    if request.json_schema is not None:
        return request.json_schema
    return None if request.schema is None else _model_schema(request.schema)


def response_format(request: LLMRequest, mode: str) -> dict | None:
    """The `response_format` request field for a structured-output mode (see `modes`).

    The dicts are memoised per schema object, so a batch shares one (cache keys splice their
    JSON in by identity).
    """
    if request.schema is None or mode in ("none", "prompt"):
        return None
    schema = schema_of(request)
    name = request.schema.__name__
    return _FORMATS.get((id(schema), name, mode)) or _new_format(schema, name, mode)


_FORMATS: dict[tuple[int, str, str], dict] = {}
_SCHEMAS_KEPT: list[dict] = []  # keeps memoised schema objects alive, so ids are not reused


def _new_format(schema: dict, name: str, mode: str) -> dict:
    if len(_FORMATS) > 4096:  # callers building a new schema per request: stay bounded
        _FORMATS.clear()
        _SCHEMAS_KEPT.clear()
    if mode == "json_object":
        # llama-cpp-python and llama-server read `schema` here and build a grammar from it.
        fmt = {"type": "json_object", "schema": schema}
    else:
        fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    _SCHEMAS_KEPT.append(schema)
    _FORMATS[(id(schema), name, mode)] = fmt
    return fmt


@lru_cache(maxsize=256)
def _model_schema(schema: type[BaseModel]) -> dict:
    # Building a JSON schema costs milliseconds; a batch shares one schema class.
    return schema.model_json_schema()
