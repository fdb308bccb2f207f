"""What a question's centre and gold must be, as predicates shared by the template writer (which
must not write what they reject) and the automatic checks (which catch what remains).

Each predicate returns a reason a researcher reads, or None. They are lexical and general: they
read the text and the film's own records (who speaks, which screenplay lines are directions,
which beliefs were revised when), never a list of items. `docs/QUESTION_CHECKS.md` says what each
one covers and what it lets through.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from pipelines.qgen.text import content_stems
from pipelines.qgen.text import stop_words as _stop_words

# -- the centre --------------------------------------------------------------------------------
# A cue that is a voice, not a person on screen ("IDA'S VOICE", "VOICE ON PHONE", "RADIO").
_VOICE = re.compile(
    r"\b(VOICES?|V\.?\s?O\.?|O\.?\s?S\.?|O\.?\s?C\.?|RADIO|TELEVISION|TV|LOUDSPEAKER|INTERCOM|"
    r"ANNOUNCER|NARRATOR|RECORDING|TAPE|PHONE|TELEPHONE)\b",
    re.IGNORECASE,
)
# A crowd or a group ("ONE OF ASSISTANTS", "ALL", "CROWD", "THE MEN").
_GROUP_WORDS = frozenset(
    [
        "crowd",
        "people",
        "men",
        "women",
        "others",
        "everyone",
        "everybody",
        "all",
        "both",
        "group",
        "voices",
        "assistants",
        "guards",
        "cops",
        "officers",
        "police",
        "reporters",
        "workers",
        "farmers",
        "kids",
        "children",
        "girls",
        "boys",
        "players",
        "customers",
        "guests",
        "students",
        "soldiers",
        "sailors",
        "fishermen",
        "crew",
        "team",
        "family",
        "townspeople",
    ]
)
# A role description, not a name: opens with an article or a quantifier, or is numbered.
_ROLE_OPENER = re.compile(
    r"^(A|AN|THE|ONE|TWO|THREE|SOME|ANOTHER|OTHER|SEVERAL|EACH|EVERY)\s", re.IGNORECASE
)
_NUMBERED = re.compile(r"(#\s*\d+|\s\d+|\s[0-9IVX]+)$")


def centre_problem(name: str, dialogue_lines: int | None = None) -> str | None:
    """Why `name` is not a speaking character of the film, or None.

    Args:
        name: the centre's name as stored (screenplay cue or canonical name).
        dialogue_lines: how many dialogue lines the film gives this name; None when unknown
            (a film without screenplay lines), which switches the speaking test off.
    """
    cleaned = " ".join((name or "").split())
    if not cleaned:
        return "no centre"
    if _VOICE.search(cleaned):
        return f"'{cleaned}' is a voice, not a character on screen"
    words = cleaned.lower().replace("'s", "").split()
    if re.search(r"\bone of\b", cleaned, re.IGNORECASE) or words[-1] in _GROUP_WORDS:
        return f"'{cleaned}' is a crowd or a group, not one character"
    if _ROLE_OPENER.match(cleaned) or _NUMBERED.search(cleaned):
        return f"'{cleaned}' is a role description, not a named character"
    if dialogue_lines is not None and dialogue_lines < 1:
        return f"'{cleaned}' speaks no line in the film"
    return None


# -- a gold sentence -----------------------------------------------------------------------------
# A claim's framing before its proposition ("Mara learns by seeing that", "Kit witnesses this:").
_FRAME = re.compile(
    r"^(?P<holder>[A-Z][\w.'\- ]*?)\s+(?P<verb>sees that|learns by seeing that|is told that|"
    r"infers that|works out that|comes to believe that|believes that|takes [\w.' ]+? to believe "
    r"that|witnesses this:|infers it from this:|accepts [\w.' ]+?'s claim that|rejects [\w.' ]+?"
    r"'s claim that)\s+(?P<prop>.+)$"
)
_TELLS = re.compile(
    r"^(?P<teller>[A-Z][\w.'\- ]*?)\s+tells\s+(?P<holder>[A-Z][\w.'\- ]*?)\s+"
    r"that\s+(?P<prop>.+)$"
)
# Screenplay format words: a claim carrying them is a direction, not a belief.
_FORMAT_WORDS = re.compile(
    r"\b(CLOSE ON|ANGLE ON|CLOSE UP|CUT TO|FADE (IN|OUT)|DISSOLVE TO|INSERT|POV|CONT'D|"
    r"INT\.|EXT\.|we see|we hear|the camera|camera (pans|moves|holds)|on screen)\b"
)
_SPEECH_VERBS = r"(says?|said|tells?|told|asks?|asked|adds?|replies|answers?|shouts?|whispers?)"
# First or second person left in a third-person claim: a line copied, not restated.
_PERSON = re.compile(
    r"\b(I|I'm|I've|I'd|I'll)\b|\b(?i:me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|"
    r"ours|you|you're|you've|you'd|you'll|your|yours|let's)\b"
)
# A line's vocative left in ("..., Mr. Gittes", "..., Jake."): a pasted line of dialogue.
_VOCATIVE = re.compile(r",\s+(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?[A-Z][a-z]+\.?\s*$")
# Words that open a sentence and are never names: one of them capitalised mid-claim means a
# screenplay sentence was pasted in ("... sees that Behind him is a huge map").
_SENTENCE_OPENERS = frozenset(
    [
        "The",
        "A",
        "An",
        "He",
        "She",
        "It",
        "They",
        "We",
        "I",
        "You",
        "There",
        "There's",
        "That",
        "That's",
        "This",
        "These",
        "Those",
        "Let's",
        "Behind",
        "Where",
        "When",
        "What",
        "Why",
        "How",
        "Who",
        "Which",
        "Obviously",
        "If",
        "But",
        "And",
        "So",
        "Then",
        "Now",
        "Yes",
        "No",
        "Well",
        "Oh",
        "He's",
        "She's",
        "It's",
        "They're",
        "We're",
        "You're",
        "I'm",
        "Just",
        "Maybe",
        "Perhaps",
        "Yeah",
        "Hey",
        "Uh",
        "Um",
        "Either",
        "Neither",
        "Mr",
        "Mrs",
        "Ms",
        "Miss",
        "Dr",
        "Here",
        "In",
        "On",
        "At",
        "From",
        "With",
        "Into",
        "Onto",
        "As",
        "Still",
        "Even",
        "Only",
        "Look",
        "Listen",
        "Please",
        "Sure",
        "Okay",
        "OK",
        "Right",
        "Suddenly",
        "Meanwhile",
        "Inside",
        "Outside",
        "Above",
        "Below",
        "Beside",
        "Through",
    ]
)


def split_frame(claim: str) -> tuple[str, str, str] | None:
    """(holder, relation, proposition) of a template-shaped claim, or None for free prose.

    Telling is one relation however it is phrased: "A is told that P" and "B tells A that P"
    both give ("A", "told", P)."""
    text = claim.strip().rstrip(".")
    told = _TELLS.match(text)
    if told:
        return told["holder"], "told", told["prop"]
    framed = _FRAME.match(text)
    if not framed:
        return None
    verb = framed["verb"]
    relation = (
        "told"
        if verb == "is told that"
        else "seen"
        if verb in ("sees that", "learns by seeing that", "witnesses this:")
        else verb.split()[0]
    )
    return framed["holder"], relation, framed["prop"]


def sentences(text: str) -> list[str]:
    """Sentences of a text: a stop, then a capital ("T.R. Elias" and "Mr. Gittes" kept whole)."""
    parts = re.split(
        r"(?<=[a-z0-9)\]'\u2019])(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bMs)[.!?]\s+(?=[A-Z])", text
    )
    return [p.strip() for p in parts if p.strip()]


def proposition(claim: str) -> str:
    """The claim without its framing (the whole claim when it has none)."""
    parts = split_frame(claim)
    return parts[2] if parts else claim


def direction_problem(claim: str, direction_lines: Sequence[str] = ()) -> str | None:
    """Why a gold claim states a screenplay direction instead of a belief, or None.

    A direction is what the screenplay tells the reader to see (camera, setting, action), not
    what a character holds true: the claim's proposition is (nearly) a direction line of the
    film, or it carries screenplay format words."""
    prop = proposition(claim)
    match = _FORMAT_WORDS.search(prop)
    if match:
        return f"screenplay format words ('{match.group(0)}')"
    for part in sentences(prop):
        problem = _copied_direction(part, direction_lines)
        if problem:
            return problem
    return None


def _copied_direction(prop: str, direction_lines: Sequence[str]) -> str | None:
    stems = content_stems(prop, exclude_proper_nouns=False)
    if len(stems) < 2:
        return None
    # The same sentence, not the same subject: a witnessed belief shares words with the
    # direction that shows it ("Tomas has seen Ruth's warrant card" beside "Her warrant card
    # slips ... Tomas sees it"); a copied direction is that sentence, nearly word for word.
    for text, sentence in _direction_sentences(tuple(direction_lines)):
        shared = len(stems & sentence)
        if shared / len(stems) >= DIRECTION_OVERLAP and shared / len(sentence) >= DIRECTION_COVER:
            return f"copies a screenplay direction ('{_clip(text)}')"
    return None


@lru_cache(maxsize=64)
def _direction_sentences(lines: tuple[str, ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """The content stems of every sentence of the direction lines (cached per film: every claim
    is compared with every sentence)."""
    sentences = []
    for line in lines:
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            stems = frozenset(content_stems(sentence, exclude_proper_nouns=False))
            if len(stems) >= 2:
                sentences.append((sentence, stems))
    return tuple(sentences)


# Share of a claim's content words found in one direction sentence for the claim to be that
# sentence. 0.8: the claims that copy a direction keep all its words.
DIRECTION_OVERLAP = 0.8
# ... and share of that sentence's content words the claim keeps (a claim that copies a few
# words of a long sentence is a paraphrase, not the direction).
DIRECTION_COVER = 0.6


def person_problem(claim: str) -> str | None:
    """First or second person in a claim about a third person: a line pasted, not restated."""
    match = _PERSON.search(proposition(claim))
    return f"first or second person left in the claim ('{match.group(0)}')" if match else None


def pasted_sentence_problem(claim: str) -> str | None:
    """A sentence opener capitalised inside the claim ("that Behind him is ..."), or a line's
    vocative left at its end ("..., Mr. Gittes")."""
    vocative = _VOCATIVE.search(claim.strip().rstrip("."))
    if vocative and "," in claim:
        return f"a line of dialogue pasted in ('{vocative.group(0).strip(', ')}')"
    for match in re.finditer(r"(?:\bthat|:)\s+[.…]*([A-Z][a-z]*'?[a-z]*)\b", claim):
        word = match.group(1)
        # a capitalised function word or -ing form is a sentence's first word, not a name
        if word in _SENTENCE_OPENERS or word.lower() in _stop_words() or word.endswith("ing"):
            return f"a screenplay sentence pasted in ('… {match.group(0).strip()}')"
    # a line that opens by addressing someone ("that Sophie, go to the little girl's room")
    match = _VOCATIVE_OPENING.search(claim)
    if match:
        return f"a line of dialogue pasted in ('… {match.group(0).strip()}')"
    return None


_VOCATIVE_OPENING = re.compile(
    r"\bthat\s+[A-Z][a-z]+,\s+(?!the\b|a\b|an\b|his\b|her\b|their\b|who\b|which\b|whose\b|"
    r"now\b|then\b|too\b)[a-z]+\b"
)


_NAME_RUN = re.compile(r"\b[A-Z][\w']*(?:\s+(?:[Oo]f|[Oo]n|[Tt]he|[A-Z][\w']*))+")


def non_character_mention_problem(claim: str) -> str | None:
    """A voice or a group named as a person inside a claim ("Voice On Phone ain't armed",
    "One Of Assistants drowned"): a screenplay cue took the place of a pronoun."""
    for match in _NAME_RUN.finditer(claim):
        phrase = match.group(0)
        if _VOICE.search(phrase) or re.search(r"\bone of\b", phrase, re.IGNORECASE):
            return f"'{phrase}' is a screenplay cue, not a person"
    return None


def repeated_name_problem(claim: str) -> str | None:
    """One name four times in a claim ("Gittes infers that if Ida wants to see Gittes she can
    call Gittes at Gittes's office"): a line's pronouns swapped for the name one by one."""
    names = re.findall(r"\b[A-Z][a-z]{2,}\b", claim)
    for name in set(names):
        if names.count(name) >= REPEATED_NAME and name not in _SENTENCE_OPENERS:
            return f"'{name}' {names.count(name)} times: pronouns swapped for the name"
    return None


# Four, not three: hand-written gold prose names a person three times in a sentence ("Kit thinks
# Tomas believes Kit saw nothing because Tomas told him to"); four is a swap, not a style.
REPEATED_NAME = 4


def several_sentences_problem(claim: str) -> str | None:
    """A claim of more than one sentence (Table 24: one assertion per claim); a screenplay
    passage pasted whole ("he enters an outer office. The SECRETARY looks surprised.")."""
    count = len(sentences(claim))
    return f"{count} sentences in one claim" if count > 1 else None


def dangling_plural_problem(claim: str) -> str | None:
    """'they' / 'them' / 'their' with nothing plural before it in the claim (a pronoun that
    stands for nobody: "Tomas's view rests on what they tell Ruth")."""
    match = re.search(r"\b(they|them|their)\b", claim)
    if not match:
        return None
    before = claim[: match.start()]
    words = re.findall(r"[A-Za-z']+", before)
    if "and" in words or any(_is_plural(w, p) for p, w in zip(["", *words], words)):
        return None
    return f"'{match.group(0)}' refers to no one named before it"


_IRREGULAR_PLURALS = frozenset(
    [
        "men",
        "women",
        "people",
        "children",
        "police",
        "folks",
        "feet",
        "teeth",
        "mice",
        "geese",
        "both",
        "others",
        "all",
    ]
)


_DETERMINERS = frozenset(
    [
        "the",
        "these",
        "those",
        "some",
        "many",
        "few",
        "all",
        "both",
        "his",
        "her",
        "their",
        "our",
        "its",
        "two",
        "three",
        "four",
        "several",
        "other",
        "such",
        "no",
        "any",
    ]
)


def _is_plural(word: str, previous: str) -> bool:
    """A plural noun: an irregular plural ("men", "people"), or a lower-case word in -s after
    a determiner ("the banks"); a verb in -s ("rests") or a name ("Gittes") is not one."""
    lowered = word.lower()
    if lowered in _IRREGULAR_PLURALS:
        return True
    return (
        word[:1].islower()
        and previous.lower() in _DETERMINERS
        and len(lowered) > 3
        and lowered.endswith("s")
        and not lowered.endswith(("ss", "'s", "us", "is"))
    )


def own_words_problem(claim: str) -> str | None:
    """The holder's ground is the holder's own words ("June infers it from this: June says
    ..."): a belief cannot rest on what its holder says."""
    match = re.match(
        rf"^(?P<h>[A-Z][\w.'\- ]*?)\s+(?:witnesses this|infers it from this):\s+(?P=h)\s+"
        rf"{_SPEECH_VERBS}\b",
        claim.strip(),
    )
    return "the ground given is the holder's own words" if match else None


def restated_pairs(claims: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs of claims that state one proposition by one relation (the gold says one thing
    twice: "June is told that P." and "Ruth tells June that P.")."""
    framed = [split_frame(c) for c in claims]
    pairs = []
    for i, first in enumerate(framed):
        for j in range(i + 1, len(framed)):
            second = framed[j]
            if not first or not second or first[:2] != second[:2]:
                continue
            a = content_stems(first[2], exclude_proper_nouns=False)
            b = content_stems(second[2], exclude_proper_nouns=False)
            if a and b and len(a & b) / min(len(a), len(b)) >= RESTATED_OVERLAP:
                pairs.append((i, j))
    return pairs


RESTATED_OVERLAP = 0.8  # the shorter proposition's content words found in the longer one


# -- the belief record at the anchor ------------------------------------------------------------
# Types that ask how a view changed: the old belief belongs in their gold, with its revision.
CHANGE_TYPES = frozenset({"Q2", "N1", "N2", "N3", "Q8"})
STATED_OVERLAP = 0.8  # an entry is "stated" by a claim holding this share of its content words


def states(claim: str, text: str) -> bool:
    """Whether the claim states `text` (a belief entry's content)."""
    wanted = content_stems(text, exclude_proper_nouns=False)
    have = content_stems(claim, exclude_proper_nouns=False)
    return bool(wanted) and len(wanted & have) / len(wanted) >= STATED_OVERLAP


def stale_problems(
    claims: Sequence[str], entries: Iterable[Mapping], anchor_scene: int | None, qtype: str | None
) -> list[str]:
    """Claims stating, as held at the anchor, a belief the record revised before it.

    A belief revised before the anchor scene is not current knowledge. A change question (Q2,
    N1–N3, Q8) may state it as the old view, but only beside the belief that revised it; any
    other type may not state it at all. Meta-beliefs follow the same rule with `change`: a
    view about the same person replaced by a later "changed" entry at or before the anchor."""
    if anchor_scene is None:
        return []
    entries = list(entries)
    problems = []
    for entry in entries:
        replaced_by = _replacement(entry, entries, anchor_scene)
        if replaced_by is None:
            continue
        text = entry.get("content") or entry.get("claim") or ""
        stated = [c for c in claims if states(c, text)]
        if not stated:
            continue
        new_text = replaced_by.get("content") or replaced_by.get("claim") or ""
        if qtype in CHANGE_TYPES and any(states(c, new_text) for c in claims):
            continue
        problems.append(
            f"states '{_clip(text)}' ({entry.get('holder')}), revised in scene "
            f"{replaced_by.get('scene')} before the anchor (scene {anchor_scene})"
        )
    return problems


def replaced_before_anchor(
    entry: Mapping, entries: Sequence[Mapping], anchor_scene: int
) -> Mapping | None:
    """The entry of `entries` that replaced `entry` before the anchor; a stand-in without text
    when the record says it was revised but the revision is not among `entries`; None when
    `entry` still holds at the anchor."""
    return _replacement(entry, list(entries), anchor_scene)


def _replacement(entry: Mapping, entries: Sequence[Mapping], anchor_scene: int) -> Mapping | None:
    """The entry that replaced `entry` before the anchor, or None when it still holds there."""
    if "claim" in entry and entry.get("about"):
        later = [
            e
            for e in entries
            if e is not entry
            and e.get("holder") == entry.get("holder")
            and e.get("about") == entry.get("about")
            and e.get("change") == "changed"
            and entry.get("scene", 0) <= e.get("scene", -1) <= anchor_scene
            and e.get("entry") != entry.get("entry")
            and _after(e, entry, entries)
        ]
        return later[0] if later else None
    revised = entry.get("revised_at_scene")
    if revised is None or revised >= anchor_scene:
        return None
    for other in entries:
        if other.get("revises") == entry.get("entry") and other.get("holder") == entry.get(
            "holder"
        ):
            return other
    return {"scene": revised, "content": ""}


def _after(later: Mapping, earlier: Mapping, entries: Sequence[Mapping]) -> bool:
    """Later in the record: a later scene, or the same scene and listed after it."""
    if later.get("scene") != earlier.get("scene"):
        return later.get("scene", 0) > earlier.get("scene", 0)
    return entries.index(later) > entries.index(earlier)


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
