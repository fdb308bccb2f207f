"""Character-name coreference by the merge rules of LF-VideoQA Table 17, as deterministic rules.

Table 17 asks an LLM to group the names that refer to one character. Its WHEN TO MERGE rules
(case, spacing/punctuation, OCR doubling, honorifics, first name ↔ full name, last name ↔ full
name, nicknames) and WHEN NOT TO MERGE rules (different numbers, generic groups, unnumbered role
labels) are implemented here one function per rule; every merge records which rule fired and
why. "When descriptions agree" needs evidence a rule can check, so we use the screenplay's own:
two names that both speak in the same scene are two people (a character keeps one cue name
within a scene), and an ambiguous short form (a first name shared by two full names) is left
alone. An LLM pass can refine these groups later through the gateway; the rules stand alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipelines.preprocess.coref_lexicon import (
    GROUP_WORDS,
    HONORIFICS,
    NICKNAMES,
    ORDINALS,
    ROLE_WORDS,
)


@dataclass
class CharacterGroup:
    """One character: the name used throughout, every input name, and why they were merged."""

    canonical: str
    aliases: list[str]
    evidence: list[dict] = field(default_factory=list)


def undouble(text: str) -> str:
    """OCR doubling: 'JJOOHHNN' -> 'JOHN' (only when every character is doubled)."""
    compact = text.replace(" ", "")
    if (
        len(compact) >= 4
        and len(compact) % 2 == 0
        and all(compact[i] == compact[i + 1] for i in range(0, len(compact), 2))
    ):
        return compact[::2]
    return text


def surface_key(name: str) -> str:
    """Case, spacing, punctuation, OCR doubling and number formatting folded away.

    'MARY-ANNE' = 'Mary Anne' = 'MARYANNE'; 'MR. SMITH' = 'MR SMITH'; 'GUARD #1' = 'GUARD ONE' =
    'GUARD 1'; 'FIRST THIEF' = 'THIEF 1'.
    """
    words = re.findall(r"[A-Z0-9]+", undouble(strip_voice(name).upper()))
    words = [ORDINALS.get(w, w) for w in words]
    numbers = [w for w in words if w.isdigit()]
    letters = [w for w in words if not w.isdigit()]
    return "".join(letters) + ("#" + "#".join(numbers) if numbers else "")


VOICE_RE = re.compile(r"(?:'S|'|’S|’)\s+VOICE$", re.IGNORECASE)


def strip_voice(name: str) -> str:
    """ "CURLY'S VOICE" / "GITTES' VOICE" -> the speaker heard off screen."""
    return VOICE_RE.sub("", name.strip())


def _words(name: str) -> list[str]:
    return [
        w for w in re.findall(r"[A-Z]+", undouble(strip_voice(name).upper())) if w not in HONORIFICS
    ]


def _honorific(name: str) -> str | None:
    first = re.findall(r"[A-Z]+", name.upper())[:1]
    return HONORIFICS.get(first[0]) if first else None


def is_group(name: str) -> bool:
    words = re.findall(r"[A-Z]+", name.upper())
    return bool(words) and words[-1] in GROUP_WORDS


def is_role(name: str) -> bool:
    """A role label ('WAITER', 'OLD MAN', 'GUARD 2'), not a personal name."""
    words = re.findall(r"[A-Z]+", strip_voice(name).upper())
    # 'OLD MAN', 'CHINESE BUTLER', 'GUARD 2': a role noun last, or a number.
    return bool(words) and (words[-1] in ROLE_WORDS or bool(re.search(r"\d|#", name)))


class _Groups:
    """Union-find over names with the evidence of each union."""

    def __init__(self, names: list[str]) -> None:
        self.parent = {n: n for n in names}
        self.evidence: list[dict] = []

    def find(self, name: str) -> str:
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def members(self, name: str) -> list[str]:
        root = self.find(name)
        return [n for n in self.parent if self.find(n) == root]

    def conflict(self, a: str, b: str, scenes: dict[str, set[int]]) -> str | None:
        """Why the groups of a and b are different people (shared scene, gender), else None."""
        left, right = self.members(a), self.members(b)
        for x in left:
            for y in right:
                shared = scenes.get(x, set()) & scenes.get(y, set())
                if shared:
                    return f"{x!r} and {y!r} both speak in scene {min(shared)}"
        genders = {_honorific(n) for n in left + right} - {None, "n"}
        return "honorifics of different gender" if len(genders) > 1 else None

    def union(self, a: str, b: str, rule: str, detail: str) -> None:
        root_a, root_b = self.find(a), self.find(b)
        if root_a != root_b:
            self.parent[root_b] = root_a
            self.evidence.append({"names": [a, b], "rule": rule, "detail": detail})


def resolve_characters(
    scenes_by_name: dict[str, set[int]], lines_by_name: dict[str, int] | None = None
) -> list[CharacterGroup]:
    """Group coreferent character names (Table 17 rules).

    Args:
        scenes_by_name: every cue name → the scenes in which it speaks.
        lines_by_name: dialogue line count per name (picks the canonical name).
    """
    names = sorted(scenes_by_name)
    lines_by_name = lines_by_name or {}
    groups = _Groups(names)
    _merge_surface_variants(groups, names)
    _merge_honorific_variants(groups, names, scenes_by_name)
    _merge_name_forms(groups, names, scenes_by_name)
    return _collect(groups, names, lines_by_name, scenes_by_name)


def _merge_surface_variants(groups: _Groups, names: list[str]) -> None:
    """Always merge: case, spacing/punctuation, OCR doubling, same-number formatting, "X'S
    VOICE"."""
    by_key: dict[str, str] = {}
    for name in names:
        key = surface_key(name)
        if key in by_key:
            rule = (
                "voice_of"
                if VOICE_RE.search(name) or VOICE_RE.search(by_key[key])
                else "surface_variant"
            )
            groups.union(
                by_key[key],
                name,
                rule,
                f"same name after folding case/spacing/punctuation/numbers: {key}",
            )
        else:
            by_key[key] = name


def _can_merge(a: str, b: str, scenes: dict[str, set[int]]) -> str | None:
    """Why two names must stay apart (None when nothing argues against the merge)."""
    shared = scenes[a] & scenes[b]
    if shared:
        return f"both speak in scene {min(shared)}"
    if is_group(a) or is_group(b):
        return "group entity"
    if is_role(a) or is_role(b):
        return "role label"
    ha, hb = _honorific(a), _honorific(b)
    if {ha, hb} == {"m", "f"}:
        return "honorifics of different gender"
    return None


def _merge_honorific_variants(
    groups: _Groups, names: list[str], scenes: dict[str, set[int]]
) -> None:
    """'DR. CHEN' / 'CHEN' / 'Dr Chen': same name words, honorific added or changed.

    A bare surname is not merged with a female honorific form ('MULWRAY' vs 'MRS. MULWRAY' are
    husband and wife in Chinatown): in screenplays the bare surname names the man or the
    title-less person, so only neutral or male honorifics fold into it.
    """
    by_words: dict[tuple[str, ...], list[str]] = {}
    for name in names:
        if not is_group(name) and not re.search(r"\d|#", name):
            by_words.setdefault(tuple(_words(name)), []).append(name)
    for words, forms in by_words.items():
        if not words or len(forms) < 2:
            continue
        for other in forms[1:]:
            first = forms[0]
            genders = {_honorific(first), _honorific(other)}
            if genders == {"m", "f"} or (None in genders and "f" in genders):
                continue
            if groups.conflict(first, other, scenes) is None:
                groups.union(
                    first,
                    other,
                    "honorific_variant",
                    f"{other!r} and {first!r} differ only by honorific",
                )


def _rival_honorific(short: str, names: list[str]) -> bool:
    """'MR. SMITH' and 'MRS. SMITH' both exist: which one 'ELLEN SMITH' is stays unknown."""
    gender, words = _honorific(short), _words(short)
    return any(_words(n) == words and _honorific(n) not in (gender, None, "n") for n in names)


def _merge_name_forms(groups: _Groups, names: list[str], scenes: dict[str, set[int]]) -> None:
    """First name / last name / honorific / nickname ↔ full name, when unambiguous and
    consistent."""
    full = [n for n in names if len(_words(n)) >= 2 and not is_role(n) and not is_group(n)]
    for short in names:
        words = _words(short)
        if len(words) != 1 or is_role(short) or is_group(short):
            continue
        word = words[0]
        rules = [
            ("first_name", [f for f in full if _words(f)[0] == word]),
            (
                "last_name" if _honorific(short) is None else "honorific_last_name",
                [f for f in full if _words(f)[-1] == word],
            ),
            (
                "nickname",
                [f for f in full if _words(f)[0] in NICKNAMES.get(word, ())]
                + [
                    n
                    for n in names
                    if len(_words(n)) == 1 and _words(n)[0] in NICKNAMES.get(word, ())
                ],
            ),
        ]
        for rule, candidates in rules:
            candidates = [
                c for c in candidates if c != short and groups.find(c) != groups.find(short)
            ]
            roots = {groups.find(c) for c in candidates}
            if len(roots) != 1:
                continue  # none, or ambiguous between two characters
            target = candidates[0]
            objection = _can_merge(short, target, scenes) or groups.conflict(short, target, scenes)
            if rule == "honorific_last_name" and _rival_honorific(short, names):
                objection = "another honorific form of the same surname exists"
            if objection is None:
                groups.union(
                    target, short, rule, f"{short!r} is the {rule.replace('_', ' ')} of {target!r}"
                )
                break


def _collect(
    groups: _Groups, names: list[str], lines: dict[str, int], scenes
) -> list[CharacterGroup]:
    members: dict[str, list[str]] = {}
    for name in names:
        members.setdefault(groups.find(name), []).append(name)
    result = []
    for group in members.values():
        # Canonical: the form with most lines, then the longest (the fullest name).
        canonical = max(group, key=lambda n: (lines.get(n, 0), len(_words(n)), -len(n), n))
        evidence = [e for e in groups.evidence if e["names"][0] in group]
        result.append(CharacterGroup(canonical, sorted(group), evidence))
    return sorted(result, key=lambda g: (-sum(lines.get(n, 0) for n in g.aliases), g.canonical))
