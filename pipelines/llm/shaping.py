"""What the gateway sends for a request: its parameters, messages, cache key and HTTP body.

One place shapes a request for a (model, structured-output mode), so the cache key, the body
on the wire and the request stored with a cached reply always agree. The `response_format`
dicts are memoised per schema object (`requests.response_format`); their JSON is memoised
here too and spliced into keys and bodies, because re-encoding a judge schema for every call
cost more than the rest of the key.
"""

from __future__ import annotations

import json

from pipelines.llm import modes
from pipelines.llm.config import LLMConfig
from pipelines.llm.requests import (
    LLMRequest,
    cache_key,
    canonical_json,
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

    def params(self, request: LLMRequest) -> dict:
        """The request's sampling parameters; the configured token cap where it set none."""
        cap = self.max_tokens
        if cap is None or "max_tokens" in request.params:
            return request.params
        return {**request.params, "max_tokens": cap}

    def messages(self, request: LLMRequest, mode: str) -> list[dict]:
        """The chat messages sent in `mode` (prompt mode appends the schema as instructions)."""
        if mode == "prompt" and request.schema is not None:
            return modes.with_json_instructions(request.messages, schema_of(request))
        return request.messages

    def key_params(self, request: LLMRequest, mode: str) -> dict:
        """The parameters hashed into the cache key, `response_format` included."""
        params = dict(self.params(request))
        fmt = response_format(request, mode)
        if fmt is not None:
            params["response_format"] = fmt
        return params

    def key(self, request: LLMRequest, mode: str) -> str:
        """The cache key: sha256 of (model, messages, canonical params) (`requests.cache_key`)."""
        params = self.params(request)
        fmt = response_format(request, mode)
        if fmt is None:
            encoded = canonical_json(params) if params else "{}"
        else:
            # The canonical JSON of params + response_format, with the memoised schema JSON
            # spliced in where a null stands (a string value cannot hold an unescaped quote).
            encoded = canonical_json({**params, "response_format": None})
            encoded = encoded.replace(_SPLICE, f'"response_format":{_format_json(fmt)}', 1)
        return cache_key(self.model, self.messages(request, mode), encoded)

    def body(self, request: LLMRequest, mode: str) -> bytes:
        """The chat-completions JSON body as sent (UTF-8, compact)."""
        body = {"model": self.model, "messages": self.messages(request, mode)}
        body.update(self.params(request))
        fmt = response_format(request, mode)
        if fmt is not None:
            body.pop("response_format", None)  # (a step's own value: replaced, as a key is)
            body["response_format"] = None
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        if fmt is not None:
            # The last key is response_format: put the memoised schema JSON in its place.
            text = f"{text[: -len('null}')]}{_format_json(fmt)}}}"
        return text.encode()
