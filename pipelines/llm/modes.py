"""Structured-output modes, and how a server's rejection of one is recognised (DESIGN.md).

Servers speak different dialects of structured output, so the gateway tries, per (base URL,
model), the strongest mode first and steps down when the server rejects the request format:

1. `json_schema`: `response_format={"type": "json_schema", "json_schema": {name, schema}}`
   (OpenAI, vLLM, Ollama >= 0.5, LM Studio, llama.cpp's C++ `llama-server`).
2. `json_object`: `response_format={"type": "json_object", "schema": {...}}`; servers that know
   the `schema` field turn it into a grammar (llama-cpp-python's server, llama-server), others
   at least return JSON.
3. `prompt`: no `response_format`; the schema is appended to the last message as plain JSON
   instructions and the reply is parsed tolerantly (first JSON value in the text).

`none` (sent nothing, the step's own prompt asks for JSON) stays available when pinned.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

import openai

NEGOTIATED = ("json_schema", "json_object", "prompt")
PINNED = (*NEGOTIATED, "none")
AUTO = "auto"

# Words a server's error body uses when it refuses the request's output format (llama-cpp-python:
# a pydantic error on `response_format.type`; vLLM/Ollama/LM Studio: "response_format ..."
# or "json_schema ... not supported"; grammar back ends: "grammar"/"guided").
_FORMAT_WORDS = re.compile(
    r"response_format|json_schema|json_object|structured output|grammar|guided_json|guided "
    r"decoding|schema",
    re.IGNORECASE,
)
_NOT_REJECTIONS = (408, 409, 429)  # timeouts, conflicts and rate limits are transient


def next_mode(mode: str) -> str | None:
    """The mode after `mode` in the negotiation order (None after the last)."""
    if mode not in NEGOTIATED or mode == NEGOTIATED[-1]:
        return None
    return NEGOTIATED[NEGOTIATED.index(mode) + 1]


def weaker(a: str, b: str) -> str:
    """The later of two negotiated modes (a run never steps back up once a server refused)."""
    return a if NEGOTIATED.index(a) >= NEGOTIATED.index(b) else b


def is_format_rejection(exc: BaseException) -> bool:
    """True when an HTTP error says the server refused the structured-output request format.

    Any 4xx/5xx except timeouts/conflicts/rate limits counts when its body names the format
    (`response_format`, `json_schema`, ...): llama-cpp-python answers 500 to a `json_schema`
    type, so the status alone cannot tell it from a transient fault.
    """
    if not isinstance(exc, openai.APIStatusError):
        return False
    if exc.status_code in _NOT_REJECTIONS or exc.status_code < 400:
        return False
    response = getattr(exc, "response", None)
    text = f"{exc.message} {exc.body}"
    if response is not None:
        try:
            text += f" {response.text}"
        except Exception:  # noqa: BLE001 - a streamed body may be unreadable; message suffices
            pass
    return bool(_FORMAT_WORDS.search(text))


@lru_cache(maxsize=512)
def _instruction(schema_json: str) -> str:
    return (
        "Reply with one JSON object only, no prose and no code fence. "
        f"It must validate against this JSON schema:\n{schema_json}"
    )


def with_json_instructions(messages: list[dict], schema: dict) -> list[dict]:
    """`messages` with the schema appended to the last message as plain JSON instructions."""
    text = _instruction(json.dumps(schema, sort_keys=True, separators=(",", ":")))
    last = messages[-1] if messages else None
    if last is not None and isinstance(last.get("content"), str):
        return [*messages[:-1], {**last, "content": f"{last['content']}\n\n{text}"}]
    return [*messages, {"role": "user", "content": text}]
