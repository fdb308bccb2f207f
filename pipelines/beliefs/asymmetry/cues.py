"""Who is who, who saw and who told, for the `asymmetry` belief backend: the
roster's names (canonical name + aliases: the store's coreference groups), reported speech in
narration ("A told B that P", "A publicly claimed that P") and explicit witness cues ("... and
Amir did not witness the action", "Both A and B noticed that P"). Written here: the cues are
the narration's own phrasing and no library reads them offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DETERMINER = r"(?:the|a|an|his|her|their|its|my|your|our|this|that)"


@dataclass(frozen=True)
class Tell:
    """Reported speech in narration: `speaker` tells `claim` to `listener` (None: everyone)."""

    speaker: str
    listener: str | None
    claim: str


# Words that make a cue name a description of a role rather than a person's name ("THE MAN WITH
# THE PISTOL", "ONE OF THE ASSISTANTS", "VOICE ON PHONE"): articles, prepositions, conjunctions.
_DESCRIPTION_WORDS = frozenset(
    ["a", "an", "the", "of", "with", "on", "in", "at", "to", "from", "for", "by", "and", "or"]
    + ["one", "some", "two", "three"]
)


def is_description(name: str) -> bool:
    """Whether a roster name describes someone instead of naming them: a multi-word name that
    holds an article, preposition or conjunction. Its single words are ordinary words ("The
    room is dark." names no one), so only the whole description is matched."""
    words = [w.strip(".,'’").lower() for w in name.split()]
    return len(words) > 1 and any(w in _DESCRIPTION_WORDS for w in words)


class NameIndex:
    """The roster's names (canonical + aliases) and how to resolve one in a phrase."""

    def __init__(self, names: dict[str, list[str]]):
        # A whole name or alias first; then its single words, unless that word is someone's
        # whole name ("Mulwray" is MULWRAY, not MRS. MULWRAY) or shared by two characters, or
        # the name is a description whose words are common words (`is_description`).
        self.canonical: dict[str, str] = {}
        for name, aliases in names.items():
            for form in (name, *aliases):
                if len(form) > 1:
                    self.canonical.setdefault(form.lower(), name)
        words: dict[str, set[str]] = {}
        for name, aliases in names.items():
            for form in (name, *aliases):
                if is_description(form):
                    continue  # "THE MAN WITH THE PISTOL": "the", "man" are no one's name
                for word in form.split():
                    if len(word) > 1 and word.lower() not in self.canonical:
                        words.setdefault(word.lower(), set()).add(name)
        self.canonical |= {w: next(iter(owners)) for w, owners in words.items() if len(owners) == 1}
        forms = sorted(self.canonical, key=len, reverse=True)
        alternatives = "|".join(re.escape(f) for f in forms) or "(?!)"
        self.pattern = re.compile(rf"(?<![\w'])(?:{alternatives})(?![\w])", re.I)

    def resolve(self, phrase: str) -> str | None:
        """The canonical name a whole phrase names, or None."""
        clean = re.sub(r"['’]s$", "", phrase.strip().strip(".,")).lower()
        return self.canonical.get(clean)

    def names_in(self, text: str) -> list[str]:
        """Canonical names mentioned in `text`, in order, without repeats."""
        return list(
            dict.fromkeys(self.canonical[m.group(0).lower()] for m in self.pattern.finditer(text))
        )


def normalise(phrase: str, names: NameIndex) -> str:
    """A subject or value as a key: a roster name, else the phrase without determiners and
    punctuation, lower case ("the green_drawer" -> "green drawer")."""
    phrase = phrase.strip().strip(".,;:!?\"'")
    named = names.resolve(phrase)
    if named:
        return named
    words = phrase.lower().split()
    while words and re.fullmatch(DETERMINER, words[0]):
        words = words[1:]
    return " ".join(words)


def names_list(text: str, names: NameIndex) -> list[str]:
    parts = re.split(r",\s*|\s+and\s+|\s*&\s*", text.strip())
    resolved = [names.resolve(p) for p in parts if p.strip()]
    return resolved if resolved and all(resolved) else []


_TELL = re.compile(
    r"^(?P<s>[\w'’. -]+?)\s+(?:privately\s+|secretly\s+|quietly\s+)?(?:told|tells|informs|informed|"
    r"whispers to|whispered to|assures|assured|promises|promised)\s+(?P<l>[\w'’. -]+?)\s+"
    r"(?:that\s+)?(?P<claim>.+)$",
    re.I,
)
_ANNOUNCE = re.compile(
    r"^(?P<s>[\w'’. -]+?)\s+(?:publicly\s+)?(?:claimed|claims|announced|announces|declared|"
    r"declares|said|says)\s+that\s+(?P<claim>.+)$",
    re.I,
)


def reported_tell(sentence: str, names: NameIndex) -> Tell | None:
    """ "A told B that P" / "A publicly claimed that P" -> Tell (speakers must be characters)."""
    text = sentence.strip().rstrip(".")
    if match := _TELL.match(text):
        speaker, listener = names.resolve(match["s"]), names.resolve(match["l"])
        if speaker and listener:
            return Tell(speaker, listener, match["claim"].strip() + ".")
    if match := _ANNOUNCE.match(text):
        speaker = names.resolve(match["s"])
        if speaker:
            return Tell(speaker, None, match["claim"].strip() + ".")
    return None


# The witnesses are a list of names, at most 200 characters: unbounded, the search tried every
# "and" / "as" of a long sentence against the whole rest of it (quadratic in its length).
_OBSERVED = re.compile(
    r"(?:,\s*|\s+)(?:and|but|while|as)\s+(?P<who>[\w'’ ,]{1,200}?)\s+"
    r"(?P<neg>did not |didn't |does not |doesn't )?"
    r"(?:witnessed|witnesses|witness|watched|watches|watch|saw|sees|see|noticed|notices|notice)"
    r"\s+(?:the action|the event|the move|it|this|that|him|her|them)\s*$",
    re.I,
)
_NOTICED = re.compile(
    r"^(?:both\s+)?(?P<who>[\w'’ ,]+?)\s+(?:noticed|notices|saw|sees|watched|watches)\s+that\s+"
    r"(?P<rest>.+)$",
    re.I,
)


def observers_cue(sentence: str, names: NameIndex) -> tuple[str, set[str], set[str]]:
    """Strip an explicit witness cue: (the sentence without it, who saw, who did not see).

    "X moved the scarf to the bin and Amir witnessed the action" -> Amir saw; "... and Amir did
    not witness it" -> Amir missed it; "Both A and B noticed that P" -> A and B saw P.
    """
    text, saw, missed = sentence.strip().rstrip("."), set(), set()
    if match := _OBSERVED.search(text):
        who = set(names_list(match["who"], names))
        (missed if match["neg"] else saw).update(who)
        text = text[: match.start()]
    if match := _NOTICED.match(text):
        who = set(names_list(match["who"], names))
        if who:
            saw |= who
            text = match["rest"]
    return text, saw, missed
