"""Reading the JSON a model wrote: inside a code fence, or embedded in prose (tolerant parsing
of structured replies and of the tool-call fallback)."""

from __future__ import annotations

import json
import re

_JSON_START = re.compile(r"[{\[]")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def strip_fences(text: str) -> str:
    """The text inside a ```json fence, if the model wrapped its JSON in one."""
    match = _FENCE.match(text)
    return match.group(1) if match else text


def first_json_value(text: str) -> str | None:
    """The first complete JSON object or array embedded in `text` (prose around it ignored)."""
    decoder = json.JSONDecoder()
    for match in _JSON_START.finditer(text):
        try:
            _, end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        return text[match.start() : end]
    return None
