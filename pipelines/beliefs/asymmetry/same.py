"""Same state, different value: when two claims of the `asymmetry` backend are about one piece
of story state and when they disagree (the hard part). The rule, fixed before scoring:

1. Same subject. Two subjects are one when they normalise to the same key (a roster name, so
   the store's coreference groups count: "Jake" is "GITTES"), when one ends with the other word
   for word ("boat log" / "log"; "green pepper" and "red pepper" stay two), or, for two phrases
   that are not roster names, when their all-MiniLM-L6-v2 vectors have cosine >= SUBJECT_COS.
2. Same state. Location, holder and alive hold one value at a time: same subject + same slot is
   one state. For is / knows / did (free values) the values must say the same thing too (equal,
   word-suffix, or cosine >= VALUE_COS), else they are two different states, not a conflict
   ("Tomas is old" and "Tomas is the harbour master" do not disagree).
3. Disagree. Within one state: a different location / holder / alive value, or the same value
   with opposite polarity (negation cue: not, never, n't, no longer). An unreadable claim
   becomes a 'claim' fact whose subject is the claim without its negation; two such claims are
   one state when they name the same characters and their texts, names masked, have cosine
   >= CLAIM_COS; they disagree only by polarity ("the lamp failed" / "the lamp did not fail").
   (Masking: a name repeated in two chatty lines otherwise dominates their vectors, so "Gittes
   is okay" and "Gittes is not making sense" looked like one state on Chinatown.)
Thresholds: MiniLM scores paraphrases of one short phrase 0.8–0.95 and different things that
share words 0.5–0.75; the thresholds sit at the top of that gap (stricter than gold-eval's 0.6,
because merging two states wrongly invents a conflict). They are not tuned on any gold.
"""

from __future__ import annotations

import re

import numpy as np

from pipelines.beliefs.asymmetry.facts import SINGLE_VALUED, Fact

SUBJECT_COS = 0.85
VALUE_COS = 0.8
CLAIM_COS = 0.8
_NEGATION = re.compile(r"\b(?:not|never|no longer)\b\s*|n't\b", re.I)


def claim_fact(sentence: str) -> Fact:
    """A claim no pattern reads, as a 'claim' fact keyed by its text without negation."""
    text = sentence.strip()
    negated = bool(_NEGATION.search(text))
    bare = _NEGATION.sub("", text).replace(" do ", " ").replace(" did ", " ")
    bare = re.sub(r"\s+", " ", bare).strip(" .!").lower()
    return Fact(bare, "claim", "true", negated, text)


def _suffix_match(a: str, b: str) -> bool:
    wa, wb = a.split(), b.split()
    short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return bool(short) and long[-len(short) :] == short


class SameState:
    """Assigns every fact a state key (rule above); MiniLM vectors are computed in one batch.

    Args:
        facts: every fact the film or story will see (their phrases are embedded once).
        names: canonical roster names (never merged by similarity, only by equality).
        embed: texts -> unit vectors (default: `pipelines.embeddings.embed_texts`).
    """

    def __init__(self, facts: list[Fact], names: set[str], embed=None):
        self.names = names
        phrases = sorted(
            {f.subject for f in facts} | {f.value for f in facts if f.slot not in SINGLE_VALUED}
        )
        self._row = {p: i for i, p in enumerate(phrases)}
        forms = sorted({w for n in names for w in n.lower().split() if len(w) > 2}, key=len)
        self._name_pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(f) for f in reversed(forms)) + r")(?:'s)?\b"
            if forms
            else r"(?!)"
        )
        claims = {f.subject for f in facts if f.slot == "claim"}
        texts = [self._masked(p) if p in claims else p for p in phrases]
        if embed is None:
            from pipelines.embeddings import embed_texts as embed
        self._vectors = np.asarray(embed(texts)) if phrases else np.zeros((0, 1))
        self._subjects: list[str] = []  # representative subject per cluster
        self._subject_of: dict[str, str] = {}
        self._values: dict[tuple[str, str], list[str]] = {}

    def _masked(self, text: str) -> str:
        return self._name_pattern.sub("someone", text)

    def _people(self, text: str) -> set[str]:
        return {m.group(0).removesuffix("'s") for m in self._name_pattern.finditer(text)}

    def _cosine(self, a: str, b: str) -> float:
        ia, ib = self._row.get(a), self._row.get(b)
        if ia is None or ib is None:
            return 0.0
        return float(self._vectors[ia] @ self._vectors[ib])

    def same_phrase(self, a: str, b: str, threshold: float) -> bool:
        """Equal, word-suffix, or (neither a roster name) cosine >= threshold."""
        if a == b:
            return True
        if a in self.names or b in self.names:
            return False
        return _suffix_match(a, b) or self._cosine(a, b) >= threshold

    def subject_key(self, fact: Fact) -> str:
        """The cluster representative of the fact's subject."""
        if fact.subject in self._subject_of:
            return self._subject_of[fact.subject]
        claim = fact.slot == "claim"
        threshold = CLAIM_COS if claim else SUBJECT_COS
        people = self._people(fact.subject) if claim else None
        found = next(
            (
                s
                for s in self._subjects
                if (not claim or self._people(s) == people)
                and self.same_phrase(fact.subject, s, threshold)
            ),
            None,
        )
        if found is None:
            found = fact.subject
            self._subjects.append(found)
        self._subject_of[fact.subject] = found
        return found

    def key(self, fact: Fact) -> tuple[str, str, str]:
        """(subject cluster, slot, value cluster or '' for single-valued slots)."""
        subject = self.subject_key(fact)
        if fact.slot in SINGLE_VALUED or fact.slot == "claim":
            return subject, fact.slot, ""
        values = self._values.setdefault((subject, fact.slot), [])
        found = next((v for v in values if self.same_phrase(fact.value, v, VALUE_COS)), None)
        if found is None:
            found = fact.value
            values.append(found)
        return subject, fact.slot, found

    def agrees(self, a: Fact, b: Fact) -> bool:
        """Two facts of one state say the same thing (same value and polarity)."""
        same_value = a.slot not in SINGLE_VALUED or (
            a.value == b.value or _suffix_match(a.value, b.value)
        )
        if a.negated != b.negated:
            # "not in the kitchen" does not contradict "in the cellar"
            return a.slot in SINGLE_VALUED and not same_value
        if a.negated:  # "not in the kitchen" and "not in the cellar" both hold
            return True
        return same_value
