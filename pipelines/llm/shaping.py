"""What the gateway sends for a request: its parameters, messages, cache key and HTTP body.

One place shapes a request for a (model, structured-output mode), so the cache key, the body
on the wire and the request stored with a cached reply always agree. The `response_format`
dicts are memoised per schema object (`requests.response_format`); their JSON is memoised
here too and spliced into keys and bodies, because re-encoding a judge schema for every call
cost more than the rest of the key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from pipelines.llm import modes, tool_calls
from pipelines.llm.config import LLMConfig
from pipelines.llm.requests import (
    LLMRequest,
    cache_key,
    canonical_json,
    key_part,
    response_format,
    schema_of,
)

_FORMAT_JSON: dict[int, tuple[dict, str]] = {}
_SPLICE = '"response_format":null'


def _format_json(fmt: dict) -> str:
    """Canonical JSON of a response_format dict, memoised per (memoised) dict object."""
    found = _FORMAT_JSON.get(id(fmt))
    if found is None or found[0] is not fmt:
        if len(_FORMAT_JSON) > 4096:  # response_format's own memo is bounded the same way
            _FORMAT_JSON.clear()
        found = (fmt, canonical_json(fmt))
        _FORMAT_JSON[id(fmt)] = found
    return found[1]


class RequestShaper:
    """Shapes requests for one configured model (its token cap) in any output mode."""

    def __init__(self, config: LLMConfig) -> None:
        self.model = config.model
        self.max_tokens = config.max_tokens

    def params(self, request: LLMRequest, mode: str | None = None) -> dict:
        """The request's sampling parameters; the configured token cap where it set none; a
        tool request's `tools` in the native tool mode."""
        cap = self.max_tokens
        params = request.params
        if cap is not None and "max_tokens" not in params:
            params = {**params, "max_tokens": cap}
        if request.tools is not None and mode == tool_calls.NATIVE:
            params = {**params, "tools": request.tools, "tool_choice": "auto"}
        return params

    def messages(self, request: LLMRequest, mode: str) -> list[dict]:
        """The chat messages sent in `mode` (prompt mode appends the schema as instructions;
        the tool fallback renders the tools and the history as plain messages)."""
        if request.tools is not None and mode == tool_calls.PROMPT:
            return tool_calls.prompt_messages(request.messages, request.tools)
        if mode == "prompt" and request.schema is not None:
            return modes.with_json_instructions(request.messages, schema_of(request))
        return request.messages

    def key_params(self, request: LLMRequest, mode: str) -> dict:
        """The parameters hashed into the cache key, `response_format` included."""
        params = dict(self.params(request, mode))
        fmt = response_format(request, mode)
        if fmt is not None:
            params["response_format"] = fmt
        return params

    def key(self, request: LLMRequest, mode: str) -> str:
        """The cache key: sha256 of (model, messages, canonical params) (`requests.cache_key`)."""
        params = self.params(request, mode)
        fmt = response_format(request, mode)
        if fmt is None:
            encoded = canonical_json(params) if params else "{}"
        else:
            # The canonical JSON of params + response_format, with the memoised schema JSON
            # spliced in where a null stands (a string value cannot hold an unescaped quote).
            encoded = canonical_json({**params, "response_format": None})
            encoded = encoded.replace(_SPLICE, f'"response_format":{_format_json(fmt)}', 1)
        return cache_key(self.model, self.messages(request, mode), encoded)

    def key_family(self, request: LLMRequest, mode: str) -> KeyFamily | None:
        """The keys of requests that differ from `request` only in their last message's text
        (one step's prompts over many inputs), hashed from a prefix taken once: `key(request,
        mode)` for each of them, at a fraction of the cost. None when `mode` rewrites the
        messages (prompt mode) or a message carries more than a role and a text, where only
        `key` is right."""
        messages = self.messages(request, mode)
        if messages is not request.messages or not messages:
            return None
        if any(
            set(m) != {"role", "content"} or not isinstance(m["content"], str) for m in messages
        ):
            return None
        head = key_part(self.model)
        for message in messages[:-1]:
            head += key_part(str(message["role"])) + key_part(message["content"]) + key_part("")
        last = messages[-1]
        # (`key`'s own encoding: canonical JSON of the params, response_format included)
        encoded = canonical_json(self.key_params(request, mode))
        family = KeyFamily(
            tuple((m["role"], m["content"]) for m in messages[:-1]),
            last["role"],
            hashlib.sha256(head + key_part(str(last["role"]))),
            key_part("") + key_part(encoded),
        )
        return family if family.key(messages) == self.key(request, mode) else None

    def body(self, request: LLMRequest, mode: str) -> bytes:
        """The chat-completions JSON body as sent (UTF-8, compact)."""
        body = {"model": self.model, "messages": self.messages(request, mode)}
        body.update(self.params(request, mode))
        fmt = response_format(request, mode)
        if fmt is not None:
            body.pop("response_format", None)  # (a step's own value: replaced, as a key is)
            body["response_format"] = None
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        if fmt is not None:
            # The last key is response_format: put the memoised schema JSON in its place.
            text = f"{text[: -len('null}')]}{_format_json(fmt)}}}"
        return text.encode()


@dataclass(frozen=True)
class KeyFamily:
    """What the cache keys of one family of requests share (`RequestShaper.key_family`): every
    message but the last, the last one's role, and the hash state over all that, so a key
    costs one hash of the last message's text."""

    leading: tuple[tuple[str, str], ...]  # (role, content) of every message but the last
    role: str  # the last message's role
    prefix: Any  # a hashlib sha256 object over the model and the leading messages
    suffix: bytes  # what follows the last message's text: its (empty) extras and the params

    def key(self, messages: list[dict]) -> str | None:
        """The cache key of the family's request with these messages; None when they are not
        of this family (a leading message, the last role or the message count differs)."""
        if len(messages) != len(self.leading) + 1:
            return None
        for message, (role, content) in zip(messages, self.leading):
            if message.get("content") != content or message.get("role") != role:
                return None
        last = messages[-1]
        text = last.get("content")
        if last.get("role") != self.role or len(last) != 2 or not isinstance(text, str):
            return None
        digest = self.prefix.copy()
        digest.update(key_part(text) + self.suffix)
        return digest.hexdigest()
