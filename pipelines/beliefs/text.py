"""Text helpers every belief backend shares: sentences of a line, a name as it reads in one."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# A full stop that ends a title or an initial, not a sentence: "Mrs. Mulwray", "J.J. Gittes",
# "Hollis I. Mulwray". Split there, "Mrs. Mulwray nods" became "Mrs." and a sentence about
# MULWRAY.
_ABBREVIATION = re.compile(
    r"(?:(?i:\b(?:mr|mrs|ms|messrs|dr|st|jr|sr|lt|sgt|capt|col|gen|prof|rev|mt))|"
    r"(?<![\w])[A-Z](?:\.[A-Z])*)\.$"
)


def display_name(name: str) -> str:
    """`MARA` -> `Mara`, `RUTH OKAFOR` -> `Ruth Okafor` (a name as it reads in a sentence)."""
    return " ".join(part.capitalize() for part in name.split())


def split_sentences(text: str) -> list[str]:
    """`text` split into sentences, not after a title or an initial followed by a capital."""
    out: list[str] = []
    for part in _SENTENCE.split(text.strip()):
        if out and _ABBREVIATION.search(out[-1]) and part[:1].isupper():
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out
