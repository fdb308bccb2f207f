"""Pieces both screenplay parsers share: sluglines, cues, boilerplate and text clean-up."""

from __future__ import annotations

import re

# Slugline prefixes as screenwriters write them (LF-VideoQA App. C reads "scene headings";
# the Fountain spec lists INT, EXT, EST, INT./EXT, INT/EXT, I/E).
SLUG_PREFIX = r"(?:INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|I\.?\s*/\s*E|INT|EXT|EST)"
SLUG_RE = re.compile(rf"^{SLUG_PREFIX}(?:\.|\s|\s*-\s|$)", re.IGNORECASE)
# "12 INT. HOUSE - DAY 12" / "12A. EXT. ..." : scene numbers on either side.
SCENE_NUMBER_RE = re.compile(r"^(\d+[A-Z]{0,2}\.?)\s+(.*?)(?:\s+\1)?\s*$")
TRAILING_SCENE_NUMBER_RE = re.compile(r"\s+\d+[A-Z]{0,2}\.?\s*$")

TIME_WORDS = {
    "DAY",
    "NIGHT",
    "MORNING",
    "EVENING",
    "AFTERNOON",
    "DUSK",
    "DAWN",
    "SUNSET",
    "SUNRISE",
    "LATER",
    "MOMENTS LATER",
    "CONTINUOUS",
    "SAME",
    "SAME TIME",
    "NOON",
    "MIDNIGHT",
    "LATE NIGHT",
    "EARLY MORNING",
    "LATE AFTERNOON",
    "MAGIC HOUR",
    "TWILIGHT",
    "PRE-DAWN",
    "NIGHT (LATER)",
    "DAY (LATER)",
    "SIMULTANEOUS",
}

PAGE_NUMBER_RE = re.compile(r"^\s*(?:page\s*)?\d{1,3}[A-Z]?\.?\s*$", re.IGNORECASE)
CONTINUED_RE = re.compile(
    r"^\s*\(?\s*(?:CONTINUED|CONT'D|CONT’D)\s*(?:ON NEXT PAGE)?\s*:?\s*\)?\s*(?:\(\d+\))?\s*:?\s*$",
    re.IGNORECASE,
)
MORE_RE = re.compile(r"^\s*\(\s*MORE\s*\)\s*$", re.IGNORECASE)
TRANSITION_RE = re.compile(
    r"^(?:[A-Z][A-Z .'’\-]*\s)?(?:TO|IN|OUT|UP)[:.]?$|^(?:FADE OUT|FADE TO BLACK|THE END|"
    r"BLACKOUT|CUT TO BLACK|SMASH CUT|INTERCUT|END CREDITS|FADE IN)[:.]?$"
)
# A cue: upper-case name, maybe with "(V.O.)"-style extensions; at most ~5 words.
CUE_RE = re.compile(r"^([^a-z()]*?[A-Z][^a-z()]*?)\s*((?:\([^)]*\)\s*)*)\^?\s*$")
EXTENSION_RE = re.compile(r"\(([^)]*)\)")
BARE_EXTENSION_RE = re.compile(r"\s(V\.?\s?O\.?|O\.?\s?S\.?|O\.?\s?C\.?)$")
HONORIFIC_END_RE = re.compile(r"\b(MR|MRS|MS|DR|ST|JR|SR)\.$")


def clean_text(text: str) -> str:
    """Collapse hard line breaks and runs of spaces (Table 15 rule 4: one event, one line)."""
    return re.sub(r"\s+", " ", text).strip()


def is_upper(text: str) -> bool:
    """True when the text has letters and none of them is lower case."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and all(not c.islower() for c in letters)


def strip_scene_numbers(line: str) -> str:
    """'12A INT. HOUSE - DAY 12A' -> 'INT. HOUSE - DAY'."""
    text = line.strip()
    match = SCENE_NUMBER_RE.match(text)
    if match and SLUG_RE.match(match.group(2)):
        text = match.group(2)
    if SLUG_RE.match(text):
        text = TRAILING_SCENE_NUMBER_RE.sub("", text)
    return text.strip()


def is_slugline(line: str) -> bool:
    """An INT./EXT.-style scene heading, with or without scene numbers."""
    return bool(SLUG_RE.match(strip_scene_numbers(line)))


def split_heading(heading: str) -> tuple[str | None, str | None]:
    """Heading -> (location, time of day), as Table 15's `Location:` and `Time:` fields.

    The prefix (INT./EXT.) is dropped; the last " - " part is the time when it is a time word
    (a year tag such as "(1973)" may follow it).
    """
    body = re.sub(rf"^{SLUG_PREFIX}\.?\s*(?:-\s*)?", "", heading.strip(), flags=re.IGNORECASE)
    parts = [p.strip() for p in re.split(r"\s+[-–—]+\s+|\s+--\s*", body) if p.strip()]
    if not parts:
        return None, None
    last = re.sub(r"\s*\(.*?\)\s*$", "", parts[-1]).strip().upper()
    if len(parts) > 1 and (last in TIME_WORDS or last.endswith(" LATER")):
        return " - ".join(parts[:-1]), parts[-1]
    if len(parts) == 1:
        # "INT HOUSE DAY" (no dashes): a trailing time word still counts.
        words = parts[0].rsplit(" ", 1)
        if len(words) == 2 and words[1].upper() in TIME_WORDS:
            return words[0], words[1]
    return " - ".join(parts), None


def parse_cue(line: str) -> tuple[str, tuple[str, ...]] | None:
    """'EDWARD (V.O.)(CONT'D)' -> ('EDWARD', ('V.O.', "CONT'D")); None when not a cue."""
    text = line.strip().lstrip("@").strip()
    match = CUE_RE.match(text)
    if not match:
        return None
    name = clean_text(match.group(1)).rstrip(":,").strip()
    bare = BARE_EXTENSION_RE.search(name)
    extensions_found = ()
    if bare:
        # "ETHAN VO": an extension typed without its parentheses.
        name, extensions_found = name[: bare.start()].strip(), (bare.group(1).replace(" ", ""),)
    if (
        "--" in name
        or name.endswith((".", "!", "?"))
        and not HONORIFIC_END_RE.search(name)
        or re.search(r"(?<!\bMR|\bMS|\bDR|\bST)(?<!\bMRS)\.\s", name)
    ):
        return None
    if not name or len(name) > 40 or len(name.split()) > 6 or not any(c.isalpha() for c in name):
        return None
    extensions = tuple(clean_text(e) for e in EXTENSION_RE.findall(match.group(2) or ""))
    return name, extensions_found + extensions


def is_transition(line: str) -> bool:
    """CUT TO:, FADE OUT., DISSOLVE TO:, BLACKOUT: ..."""
    text = line.strip()
    return is_upper(text) and len(text) < 40 and bool(TRANSITION_RE.match(text))


def is_boilerplate(line: str) -> str | None:
    """The boilerplate role of a line (page number, CONTINUED, (MORE)), or None."""
    if PAGE_NUMBER_RE.match(line):
        return "page_number"
    if MORE_RE.match(line):
        return "more"
    if CONTINUED_RE.match(line):
        return "continued"
    return None
