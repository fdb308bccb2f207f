"""Who "he", "she" and "it" are in a scene's dialogue, for the `asymmetry` belief backend
("use the store's entities and coreference").

A spoken claim is only comparable with what the story says elsewhere once its pronoun is
resolved: "It didn't fail." (after "Tell me the lamp failed") is "The lamp didn't fail.", and
"He was a journalist." (after "The man you found was Daniel Ashe") is "Daniel Ashe was a
journalist.". The rule (a recency rule, the classic baseline of pronoun resolution):
- a sentence-initial He / She (or He's / She's) is the person mentioned last in the scene, by
  a direction or a line, who is neither the speaker nor the line's addressee nor of the other
  gender: a roster name (canonical) or a run of two or more capitalised words inside a sentence
  ("Daniel Ashe", gender unknown; not after a preposition of place: "below Gull Point"). A
  roster character's gender is the majority of he/his/him against she/her among the
  directions' sentences that name only them and the unnamed sentence after each ("Mara turns
  the man's face. She goes still." -> Mara is "she");
- a sentence-initial It is the definite thing mentioned last ("the lamp", "the boat log"), a
  phrase of "the" and one or two words that are not people ("the man") or function words;
  a copular It ("It's November", "It was worth a try") is most often a dummy subject and stays;
- nothing mentioned yet: the pronoun stays (the claim then reads as it was said).
Only the subject at a sentence's start is resolved: an object pronoun ("I put it out") is left,
since a wrong object is worse than none. Written here: coreference libraries need a model.
"""

from __future__ import annotations

import re
from collections import defaultdict

from pipelines.beliefs.asymmetry.cues import NameIndex
from pipelines.beliefs.text import display_name, split_sentences

_PROPER = re.compile(r"(?<=[a-z,;:] )((?:[A-Z][a-z]+)(?: [A-Z][a-z]+)+)")
_THE = re.compile(r"\bthe ([a-z]+)(?: ([a-z]+))?", re.I)
_SUBJECT = re.compile(r"^(He|She|It)('s)?\b")
# "It's November", "It was worth a try": a copular "it" is most often a dummy subject (time,
# weather, a cleft), so it is left as it is; "It's been dark" (has) is resolved.
_DUMMY_IT = re.compile(r"^It(?:'s(?! been\b)| is| was)\b")
# Words that end a "the ..." phrase rather than continue it ("the lamp failed", "the log too").
_FUNCTION = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
_PEOPLE = frozenset(
    [
        "man",
        "men",
        "woman",
        "women",
        "boy",
        "girl",
        "lad",
        "kid",
        "child",
        "guy",
        "people",
        "person",
        "police",
        "inspector",
        "detective",
        "officer",
        "father",
        "mother",
        "dad",
        "mum",
        "son",
        "daughter",
        "wife",
        "husband",
    ]
)


def _thing(match: re.Match) -> str | None:
    first, second = match.group(1).lower(), (match.group(2) or "").lower()
    if first in _FUNCTION or first in _PEOPLE:
        return None
    keep_second = second and second not in _FUNCTION and not second.endswith(("ed", "ing", "ly"))
    if keep_second and second in _PEOPLE:
        return None
    return f"the {first} {second}" if keep_second else f"the {first}"


_PLACE_PREPOSITIONS = frozenset(
    ["in", "at", "to", "from", "on", "near", "below", "above", "into", "toward", "towards", "past"]
)
_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.I)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.I)


def genders(directions: list[str], names: NameIndex) -> dict[str, str]:
    """'he' or 'she' per roster character the directions show (module docstring); a tie or no
    pronoun leaves them out (unknown: either pronoun may be them)."""
    votes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for text in directions:
        sentences = split_sentences(text)
        for i, sentence in enumerate(sentences):
            named = names.names_in(sentence)
            if len(named) != 1:
                continue
            after = sentences[i + 1] if i + 1 < len(sentences) else ""
            window = sentence + " " + ("" if names.names_in(after) else after)
            votes[named[0]][0] += len(_HE.findall(window))
            votes[named[0]][1] += len(_SHE.findall(window))
    return {n: "he" if he > she else "she" for n, (he, she) in votes.items() if he != she}


class Referents:
    """The last person and the last thing a scene mentioned (module docstring); `resolve` notes
    each sentence it reads, so call `mention` only for what is not resolved (directions)."""

    def __init__(self, names: NameIndex, gender: dict[str, str] | None = None):
        self.names, self.gender = names, gender or {}
        self.people: list[str] = []  # display forms, most recent last
        self.thing: str | None = None

    def mention(self, text: str) -> None:
        """Note the people and things `text` mentions, in order."""
        found: list[tuple[int, str, str]] = []
        for match in self.names.pattern.finditer(text):
            found.append((match.start(), "person", self.names.canonical[match.group(0).lower()]))
        for match in _PROPER.finditer(text):
            before = text[: match.start()].split()[-1:]
            if before and before[0].lower() in _PLACE_PREPOSITIONS:
                continue  # "below Gull Point", "to New York": a place, not a person
            if not self.names.names_in(match.group(1)):
                found.append((match.start(), "person", match.group(1)))
        for match in _THE.finditer(text):
            thing = _thing(match)
            if thing:
                found.append((match.start(), "thing", thing))
        for _, kind, value in sorted(found):
            if kind == "thing":
                self.thing = value
            else:
                self.people = [p for p in self.people if p != value] + [value]

    def _person(self, exclude: set[str], pronoun: str) -> str | None:
        for person in reversed(self.people):
            if person not in exclude and self.gender.get(person, pronoun) == pronoun:
                return display_name(person) if person.isupper() else person
        return None

    def resolve(self, text: str, speaker: str, addressees: list[str]) -> str:
        """A spoken line with each sentence's leading He / She / It resolved."""
        exclude = {speaker, *addressees}
        out = []
        for sentence in split_sentences(text):
            match = _SUBJECT.match(sentence)
            dummy = match and match.group(1) == "It" and _DUMMY_IT.match(sentence)
            if match and not dummy:
                pronoun = match.group(1).lower()
                who = self.thing if pronoun == "it" else self._person(exclude, pronoun)
                if who:
                    rest = sentence[match.end() :]
                    verb = ""
                    if match.group(2):  # "It's been dark" is "has been", "He's cold" is "is"
                        verb = " has" if rest.lstrip().startswith("been") else " is"
                    who = who[0].upper() + who[1:]
                    sentence = who + verb + rest
            out.append(sentence)
            self.mention(sentence)  # the next sentence may refer to what this one named
        return " ".join(out)
