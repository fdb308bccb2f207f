"""Keep API keys out of everything the gateway writes or raises (DESIGN.md, "LLM calls")."""

from __future__ import annotations

import re

# Bearer tokens and OpenAI-style keys, including the partially masked forms servers echo back
# ("Incorrect API key provided: sk-abc***xyz").
_KEY_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-\*\.]{6,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-\.\*=]{6,}"),
]
MASK = "[redacted]"


def redact(text: str | None, *secrets: str | None) -> str | None:
    """`text` with every given secret, and anything shaped like a key, replaced by a mask."""
    if text is None:
        return None
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    text = _KEY_PATTERNS[0].sub(MASK, text)
    return _KEY_PATTERNS[1].sub(lambda m: m.group(1) + MASK, text)
