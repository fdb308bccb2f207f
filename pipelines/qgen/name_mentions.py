"""Whether a question names a character: in full, or by a distinctive part of the name.

The name budget (App. F.1) forbids names the film never speaks aloud; the check
(`checks.check_forbidden_names`) and the records of generated questions (`records.py`,
`check_run.py`) both ask which of a list of names a question uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipelines.qgen.text import words

_HONORIFICS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "miss",
        "dr",
        "doctor",
        "sir",
        "lady",
        "lord",
        "madam",
        "madame",
        "father",
        "mother",
        "sister",
        "brother",
        "uncle",
        "aunt",
        "the",
        "a",
        "an",
        "of",
        "de",
        "la",
        "le",
        "van",
        "von",
        "mc",
        "officer",
        "captain",
        "detective",
        "agent",
    ]
)


def names_mentioned(question: str, names: Sequence[str], allowed: Sequence[str] = ()) -> list[str]:
    """The names of `names` the question uses, in full or by a distinctive part."""
    return sorted({name for name in names if _mentions(question, name, allowed)})


def _mentions(question: str, name: str, allowed: Sequence[str]) -> bool:
    """Whether the question names `name` in full (any case) or by a distinctive part of it.

    A part (or a one-word label) counts only where it is written as a name (capitalised: "Pike",
    not "the police station"), and never for numbered role labels ("POLICE 1", "GUARD 2"), which the
        film can
    only name in full. Parts shared with an allowed name are skipped ("Harlow" of "Tom Harlow").
    """
    # Multi-word labels count in any case ("the line judge", App. F.1's example); a one-word
    # label counts only written as a name, or "the guard station" would name GUARD.
    full = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])", re.IGNORECASE)
    if any(len(words(m.group(0))) > 1 or m.group(0)[:1].isupper() for m in full.finditer(question)):
        return True
    if re.search(r"\d", name):
        return False
    allowed_parts = {part.lower() for other in allowed for part in words(other)}
    for part in words(name):
        if part.lower() in _HONORIFICS or len(part) <= 2 or part.lower() in allowed_parts:
            continue
        written = {part[:1].upper() + part[1:].lower(), part.upper()}
        if any(re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", question) for w in written):
            return True
    return False
