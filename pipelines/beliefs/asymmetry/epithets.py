"""Who an epithet names, for the `asymmetry` belief backend ("use the store's entities
and coreference"; LF-VideoQA App. D: a belief is about characters, so "Your birdwatcher is
police" is a claim about the character who was called the birdwatcher).

A character is called by a description only after the story has said it of them. Two sources:
- a predicate nominal: "X is a / an / the N" said of a roster character X ("And you're the
  birdwatcher." -> "Ruth is the birdwatcher.") makes "the N" or "<anyone>'s N" name X
  (one or two words, as said; "Ruth is not a birdwatcher" and "Tomas is old" name nobody);
- a kinship vocative: a line that addresses its only listener as "Dad" / "Mum" (", Dad.") says
  the speaker is the listener's child, so "<listener>'s girl / son / kid ..." names the speaker
  and "<speaker>'s dad / father ..." the listener.
An epithet is resolved only where it is a claim's subject (the sentence's opening words, as
for pronouns in `asymmetry.refs`), only from what was said before, and only when exactly one
character answers to it: "the man" said of two characters stays "the man". Written here:
coreference libraries need a model.
"""

from __future__ import annotations

import re
from collections import defaultdict

from pipelines.beliefs.asymmetry.cues import NameIndex
from pipelines.beliefs.text import display_name, split_sentences

# A closed class: the words for a parent one addresses, and for a child or a parent one names.
_PARENT_VOCATIVES = frozenset(
    ["dad", "daddy", "father", "pa", "papa", "pop", "mum", "mummy", "mom", "mommy", "mother", "ma"]
)
_CHILD_WORDS = frozenset(["girl", "boy", "son", "daughter", "lad", "lass", "kid", "child"])
_PARENT_WORDS = _PARENT_VOCATIVES
_VOCATIVE = re.compile(r"(?:^(?P<lead>\w+),\s|,\s*(?P<tail>\w+)\s*[.!?]?\s*$)")
_NOUN = r"[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?"
_PREDICATE = re.compile(rf"^(?P<who>[\w.' ]+?)\s+is\s+(?:a|an|the)\s+(?P<noun>{_NOUN})\s*[.!]?$")
_SUBJECT = re.compile(r"^(?:(?:The|the)\s+|(?P<owner>[A-Z][\w.]*(?:\s+[A-Z][\w.]*)?)['’]s\s+)")


class Epithets:
    """Descriptions said of characters so far, and the claims they let us resolve."""

    def __init__(self, names: NameIndex):
        self.names = names
        self.called: dict[str, set[str]] = defaultdict(set)  # "birdwatcher" -> {RUTH}
        self.children: dict[str, set[str]] = defaultdict(set)  # parent -> children
        self.parents: dict[str, set[str]] = defaultdict(set)  # child -> parents

    def note_line(self, text: str, speaker: str, listeners: list[str]) -> None:
        """A spoken line: a parent vocative to its only listener (module docstring)."""
        if len(listeners) != 1:
            return
        for sentence in split_sentences(text.strip()):
            m = _VOCATIVE.search(sentence)
            if m and (m["lead"] or m["tail"]).lower() in _PARENT_VOCATIVES:
                self.children[listeners[0]].add(speaker)
                self.parents[speaker].add(listeners[0])

    def note_claim(self, claim: str) -> None:
        """A claim "X is a / an / the N" about a roster character X."""
        m = _PREDICATE.match(claim.strip())
        who = self.names.resolve(m["who"]) if m else None
        if who is not None:
            self.called[m["noun"].lower()].add(who)

    def resolve(self, claim: str) -> str:
        """The claim with an epithet at its start replaced by the one character it names."""
        m = _SUBJECT.match(claim)
        if not m:
            return claim
        rest = claim[m.end() :]
        owner = self.names.resolve(m["owner"]) if m["owner"] else None
        if m["owner"] and owner is None:
            return claim
        for noun in _nouns(rest):
            who = self._named(noun.lower(), owner)
            if who is not None:
                return display_name(who) + rest[len(noun) :]
        return claim

    def _named(self, noun: str, owner: str | None) -> str | None:
        if owner is not None and noun in _CHILD_WORDS:
            found = self.children.get(owner, set())
        elif owner is not None and noun in _PARENT_WORDS:
            found = self.parents.get(owner, set())
        else:
            found = self.called.get(noun, set()) - {owner}
        return next(iter(found)) if len(found) == 1 else None


def _nouns(rest: str) -> list[str]:
    """The two-word then the one-word phrase a claim's subject may be ("harbour master")."""
    words = re.match(r"([a-z][a-z-]+)(?:\s+([a-z][a-z-]+))?", rest)
    if not words:
        return []
    return [f"{words[1]} {words[2]}", words[1]] if words[2] else [words[1]]
