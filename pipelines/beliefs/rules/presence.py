"""Which characters a direction line puts on screen, and which it merely mentions.

LF-VideoQA Table 19's top rung: on_screen = "the scene shows them speaking or acting, or places
them physically in its space". A direction that names a character does not always do that, so
a name in a direction places its character unless the name is only a mention:
- part of another roster character's name: inside a longer roster name ("Mrs. Mulwray" when
  MRS. MULWRAY is on the roster) or the surname after another character's name ("Evelyn
  Mulwray" is EVELYN, not MULWRAY); a role the roster holds as a character is a title before a
  name ("Detective Loach" is LOACH, not DETECTIVE);
- a possessive ("Mulwray's car", "GITTES' OFFICE"): the thing is on screen, not its owner;
  except a body part ("Evelyn's hand trembles") or a point of view ("ETHAN's POV"), which
  places the person, and a contraction ("Gittes's going", "Kit's not there"), which is "is" /
  "has", not a possessive;
- a depiction, a quotation or an identity taken on: inside "photo(s) / picture / footage ... of"
  up to the clause's end ("photos of Mulwray and the girl"), inside quotation marks (a sign, a
  caption, a headline: "HOLLIS I. MULWRAY CHIEF ENGINEER"), or right after "posed as" /
  "impersonates" ("the woman who posed as Evelyn Mulwray");
- a dead character. A body on screen is no perceiving character (Table 18's witnesses are those
  who perceive): once a direction says the character is dead ("the body of Mulwray",
  "Mulwray's corpse", "Mulwray is dead", "Mulwray dies"; not "Nadia's body", said of the
  living too), later direction names do not place them. Speaking in person (not V.O.) brings
  them back: the death was a reading error, a fake or a flashback, and Table 19 puts whoever
  speaks on screen.
A mention is still a mention: the scene bears on the character (Table 19's offscreen_unaware).
Directions are narration, so they alone decide a death; dialogue can lie or be wrong.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import accumulate

# A closed list: the possessed thing is part of the person ("Nadia's body" while she lives), or
# their eyes are the camera ("ETHAN's POV"), so they are there.
_PART_OF_THEM = (
    r"(?:body|face|hands?|eyes?|head|arms?|fingers?|lips|mouth|shoulders?|feet|foot|legs?|"
    r"knees?|chin|cheeks?|neck|jaw|hair|expression|gaze|smile|brow|forehead|pov|"
    r"point\s+of\s+view)\b"
)
# After "'s", a function word or a participle means "is" / "has" ("Kit's not here").
_CONTRACTION = (
    r"(?:a|an|the|not|no|never|still|just|been|got|gone|here|there|now|already|about|in|on|at|"
    r"out|up|down|off|back|too|all|very|almost|alone|alive|[a-z]+ing)\b"
)
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)(?!\w)", re.I)
# what follows a possessive suffix, read in place (`match(text, pos)`), never from a copy of the
# rest of the line: a copy per name made a long direction line cost its length squared
_PART_OF_THEM_AFTER = re.compile(r"\s*" + _PART_OF_THEM, re.I)
_CONTRACTION_AFTER = re.compile(r"\s*" + _CONTRACTION)
_DEPICTION = re.compile(
    r"\b(?:photo(?:graph)?s?|pictures?|portraits?|snapshots?|drawings?|paintings?|posters?|"
    r"images?|sketch(?:es)?|statues?|busts?|likeness(?:es)?|footage|videos?|films?|newsreels?|"
    r"clippings?|displays?|exhibits?|murals?|montages?)\s+of\b[^.;:!?–—]*",
    re.I,
)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
# Named as an identity someone else takes on: "the woman who posed as Evelyn Mulwray".
_POSING_AS = re.compile(
    r"\b(?:pos(?:es|ed|ing)|disguised|masquerad(?:es|ed|ing))\s+as\s+$|"
    r"\bpretend(?:s|ed|ing)?\s+to\s+be\s+$|\bimpersonat(?:es|ed|ing)\s+$",
    re.I,
)
_DEATH_BEFORE = re.compile(r"\b(?:body|corpse|remains)\s+of\s+(?:the\s+)?$|\bdead\s+$", re.I)
_DEATH_AFTER = re.compile(  # read in place: `match(text, end)`
    r"(?:(?:'s|’s|'|’)\s+(?:(?:dead|lifeless)\s+body|corpse|remains)\b|"
    r"(?:'s|’s|\s+is|\s+lies|\s+falls|\s+was|\s+has\s+been)\s+(?:dead|killed)\b|"
    r"\s+dies\b)",
    re.I,
)


class _NameMatches(list):
    """The roster names found in a line, `(start, end, character)` sorted, with what finds a
    match's neighbours without scanning them all: the cost of a line stays linear in its
    length however many names it holds (a scan of every pair took minutes on a 200,000-character
    direction line)."""

    def __init__(self, matches: list[tuple[int, int, str]]):
        super().__init__(sorted(matches))
        self.starts = [start for start, _, _ in self]
        self.longest = max((end - start for start, end, _ in self), default=0)

    def near(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """The matches that can contain, end one character before, or start one character
        after the span `start:end` (a name is at most `longest` long)."""
        first = bisect_left(self.starts, start - self.longest - 1)
        return self[first : bisect_right(self.starts, end + 1)]


def _matches(text: str, patterns: dict[str, re.Pattern]) -> _NameMatches:
    return _NameMatches(
        [
            (m.start(), m.end(), character)
            for character, pattern in patterns.items()
            for m in pattern.finditer(text)
        ]
    )


# Role words a roster may hold as a character ("DOCTOR", "DETECTIVE"): before a name they are
# that name's title ("Detective Loach" is LOACH), not a first name.
_TITLES = re.compile(
    r"(?:doctor|dr|detective|sergeant|sgt|captain|lieutenant|lt|officer|inspector|agent|"
    r"professor|judge|nurse|father|mother|sister|brother|uncle|aunt|mr|mrs|miss|ms)\.?",
    re.I,
)


def _is_title(text: str, start: int, end: int) -> bool:
    return bool(_TITLES.fullmatch(text[start:end]))


def _inside_other_name(match: tuple, matches: _NameMatches, text: str) -> bool:
    """Part of another character's name: within a longer match, or right after one (a
    surname), unless that one is a title; a title right before a name is part of it."""
    start, end, character = match
    for other_start, other_end, other in matches.near(start, end):
        if other == character:
            continue
        within = other_start <= start and end <= other_end and other_end - other_start > end - start
        after = other_end < start and text[other_end:start] == " "
        before = end < other_start and text[end:other_start] == " "
        surname = after and not _is_title(text, other_start, other_end)
        title = before and _is_title(text, start, end)
        if within or surname or title:
            return True
    return False


def _possessive(text: str, end: int) -> bool:
    suffix = _POSSESSIVE.match(text, end)
    if not suffix:
        return False
    if _PART_OF_THEM_AFTER.match(text, suffix.end()):
        return False
    apostrophe_s = suffix.group(0).lower() in ("'s", "’s")
    return not (apostrophe_s and _CONTRACTION_AFTER.match(text, suffix.end()))


def _spans(text: str) -> list[tuple[int, int]]:
    """Where names are depicted or quoted, not shown."""
    return [m.span() for regex in (_DEPICTION, _QUOTED) for m in regex.finditer(text)]


def without_depictions(text: str) -> str:
    """`text` with its depicted and quoted stretches blanked: what is left is what the scene
    shows. A "He" after a door sign reading "HOLLIS I. MULWRAY" is not Mulwray."""
    blank = [False] * len(text)
    for start, end in _spans(text):
        blank[start:end] = [True] * (end - start)
    if not any(blank):
        return text
    return "".join(" " if hidden else char for char, hidden in zip(text, blank, strict=True))


class _Covered:
    """Whether a span lies inside one of `spans`, found by bisection, not by a scan."""

    def __init__(self, spans: list[tuple[int, int]]):
        spans = sorted(spans)
        self.starts = [a for a, _ in spans]
        self.reach = list(accumulate((b for _, b in spans), max))  # furthest end so far

    def __contains__(self, span: tuple[int, int]) -> bool:
        start, end = span
        count = bisect_right(self.starts, start)  # the spans that begin at or before it
        return count > 0 and self.reach[count - 1] >= end


def placed(text: str, patterns: dict[str, re.Pattern], dead: set[str] = frozenset()) -> list[str]:
    """Characters a direction line puts on screen (the module's rule), in order of first place."""
    matches = _matches(text, patterns)
    covered = _Covered(_spans(text))
    found: list[str] = []
    for match in matches:
        start, end, character = match
        if character in dead or character in found:
            continue
        if _inside_other_name(match, matches, text) or _possessive(text, end):
            continue
        if (start, end) in covered:
            continue
        if _POSING_AS.search(text[max(0, start - 30) : start]):
            continue
        found.append(character)
    return found


def deaths(text: str, patterns: dict[str, re.Pattern]) -> list[str]:
    """Characters a direction line says are dead ("the body of X", "X's corpse", "X dies")."""
    matches = _matches(text, patterns)
    dead = []
    for match in matches:
        start, end, character = match
        if _inside_other_name(match, matches, text) or character in dead:
            continue
        end = _name_end(end, matches, text)  # "Evelyn Mulwray dies": after the surname
        if _DEATH_BEFORE.search(text[max(0, start - 20) : start]) or _DEATH_AFTER.match(text, end):
            dead.append(character)
    return dead


def _name_end(end: int, matches: _NameMatches, text: str) -> int:
    """Where a full name ends: past a surname that is another roster name."""
    for other_start, other_end, _ in matches.near(end + 1, end + 1):
        if other_start == end + 1 and text[end] == " ":
            return other_end
    return end
