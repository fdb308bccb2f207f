"""The claims of the `template` backend: one per stored belief entry of a context-set payload.

Split from template_text.py, which writes the question (anchor and frame): the claims follow
their own rules of Table 24 (people in normal case, one assertion each, the belief stated as it
holds at the anchor) and carry what the review needs (entries, distractor, why supported).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from data_access.formats.question_types import BELIEF_STATE_TYPES
from pipelines.qgen import content_rules as rules
from pipelines.qgen.template_text import display_name

# Written with the holder's name, never "they" (a pronoun that stood for nobody: "Tomas's view
# rests on what they tell Ruth"; the check `well_formed`).
_SOURCE_PHRASES = {
    "told": "what {about} tells {holder}",
    "c_told_d": "what {holder} tells {about}",
    "observed": "what {holder} sees {about} do",
    "behaviour": "how {about} behaves",
    "d_absence": "{about} being absent when it happened",
    "shared_witness": "an event they both witness",
}


@dataclass
class TemplateClaim:
    """A claim written from one belief entry."""

    text: str
    role: str
    entries: list[str] = field(default_factory=list)
    distractor: str = ""
    supported: bool = True
    why: str = "restates a stored belief entry"


def _prop(text: str) -> str:
    """A proposition to follow "that": whitespace normalised, final stop dropped, and a
    sentence-initial capital lowered unless the word is a name ("A diver" -> "a diver")."""
    text = re.sub(r"\s+", " ", text or "").strip().rstrip(".;:")
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and first.lower() in _LOWER_OPENERS:
        text = text[:1].lower() + text[1:]
    return text


_LOWER_OPENERS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "there",
        "here",
        "he",
        "she",
        "they",
        "we",
        "you",
        "his",
        "her",
        "their",
        "our",
        "my",
        "your",
        "some",
        "every",
        "no",
        "nobody",
        "someone",
        "everyone",
        "nothing",
        "something",
        "all",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "if",
        "when",
        "after",
        "before",
    ]
)


def _holds_at_anchor(entry: dict, payload: dict) -> bool:
    revised = entry.get("revised_at_scene")
    anchor = (payload.get("anchor") or {}).get("scene")
    return revised is None or anchor is None or revised >= anchor


def _belief_claim(entry: dict, payload: dict, role: str = "core") -> TemplateClaim:
    holder = display_name(entry["holder"])
    verb = {
        "witnessed": "sees that",
        "told": "is told that",
        "inferred": "infers that",
        "revised": "comes to believe that",
        "false": "believes that",
    }.get(entry["kind"], "believes that")
    if payload["question_type"] not in BELIEF_STATE_TYPES or payload["question_type"] == "Q8":
        verb = {
            "witnessed": "learns by seeing that",
            "told": "is told that",
            "inferred": "works out that",
        }.get(entry["kind"], "comes to believe that")
    text = f"{holder} {verb} {_prop(entry['content'])}"
    supported = payload["question_type"] not in BELIEF_STATE_TYPES or _holds_at_anchor(
        entry, payload
    )
    return TemplateClaim(
        text,
        role,
        [entry["entry"]],
        distractor=f"{holder} does not believe that {_prop(entry['content'])}.",
        supported=supported,
        why="restates a stored belief entry"
        if supported
        else f"revised at scene {entry.get('revised_at_scene')}, before the anchor",
    )


def _meta_claim(entry: dict, payload: dict) -> TemplateClaim:
    holder, about = display_name(entry["holder"]), display_name(entry["about"])
    return TemplateClaim(
        f"{holder} takes {about} to believe that {_prop(entry['claim'])}",
        "core",
        [entry["entry"]],
        distractor=f"{holder} thinks {about} does not know it.",
    )


def _source_claim(entry: dict, payload: dict) -> TemplateClaim | None:
    holder = display_name(entry["holder"])
    if entry.get("kind") == "told" and entry.get("teller"):
        teller = display_name(entry["teller"])
        return TemplateClaim(
            f"{teller} tells {holder} that {_prop(entry['content'])}", "core", [entry["entry"]]
        )
    source = _SOURCE_PHRASES.get(entry.get("source") or "")
    if source and entry.get("about"):
        about = display_name(entry["about"])
        return TemplateClaim(
            f"{holder}'s view rests on " + source.format(about=about, holder=holder),
            "core",
            [entry["entry"]],
        )
    events = [
        e
        for e in payload.get("events", [])
        if e["event_id"] in (entry.get("basis") or []) and not e.get("direction")
    ]
    how = "infers it from" if entry.get("kind") == "inferred" else "witnesses"
    for event in events:
        claim = f"{holder} {how} this: {_prop(event['description'])}"
        # A belief does not rest on its holder's own words (the check `gold_not_tautological`),
        # and a claim is one sentence (the check `well_formed`).
        if not rules.own_words_problem(claim) and len(rules.sentences(claim)) == 1:
            return TemplateClaim(claim, "core", [entry["entry"]])
    return None


def current_entries(payload: dict) -> list[dict]:
    """The entries a gold may state at the anchor (the check `gold_current_at_anchor`): one
    revised before the anchor only in a change question and followed by its revision; a meta-
    belief replaced before the anchor only in a change question."""
    entries = list(payload.get("belief_entries") or [])
    anchor = (payload.get("anchor") or {}).get("scene")
    if anchor is None:
        return entries
    change = payload["question_type"] in rules.CHANGE_TYPES
    kept: list[dict] = []
    for entry in entries:
        if entry in kept:
            continue
        replacement = rules.replaced_before_anchor(entry, entries, anchor)
        if replacement is None:
            kept.append(entry)
        elif change and replacement in entries:
            kept += [entry, replacement]
    return kept


def _by_member(entries: list[dict], members: list[str]) -> list[dict]:
    """Entries interleaved member by member, so the first four claims answer each member."""
    queues = [[e for e in entries if e["holder"] == m] for m in members]
    rest = [e for e in entries if e["holder"] not in members]
    ordered = []
    while any(queues):
        ordered += [q.pop(0) for q in queues if q]
    return ordered + rest


def _told_twice(claims: list[TemplateClaim], entry: dict) -> list[TemplateClaim]:
    """A told belief with its telling as the second claim: state the belief as held, not as
    told ("June is told that P" beside "Ruth tells June that P" says one thing twice)."""
    if len(claims) < 2 or entry.get("kind") != "told" or not entry.get("teller"):
        return claims
    if not rules.restated_pairs([claims[0].text, claims[1].text]):
        return claims
    holder = display_name(entry["holder"])
    held = entry.get("believed_by_c") is not False
    verb = "believes" if held else "does not believe"
    first = claims[0]
    first.text = f"{holder} {verb} that {_prop(entry['content'])}"
    return claims


def claims_for(payload: dict) -> list[TemplateClaim]:
    """The claims a type's template writes from the payload's belief entries (≤ 4 used)."""
    qtype, entries = payload["question_type"], current_entries(payload)
    if not entries:
        return []
    if qtype == "Q1":
        entries = _by_member(entries, list(payload.get("members") or []))
    if qtype in ("Q5", "Q6", "N2"):
        claims = [_meta_claim(e, payload) for e in entries]
        if len(claims) == 1:
            claims += [c for c in [_source_claim(entries[0], payload)] if c]
        return claims
    if qtype in ("Q4", "Q7", "Q3"):
        claims = [_belief_claim(entries[0], payload)]
        if qtype == "Q7" and entries[0].get("believed_by_c") is not None:
            holder, teller = (
                display_name(entries[0]["holder"]),
                display_name(entries[0].get("teller")),
            )
            word = "accepts" if entries[0]["believed_by_c"] else "rejects"
            claims[0] = TemplateClaim(
                f"{holder} {word} {teller}'s claim that {_prop(entries[0]['content'])}",
                "core",
                [entries[0]["entry"]],
                distractor=f"{holder} {'rejects' if word == 'accepts' else 'accepts'} it.",
            )
        source = _source_claim(entries[0], payload)
        claims += [source] if source else []
        claims = _told_twice(claims, entries[0])
        claims += [_belief_claim(e, payload, "context") for e in entries[1:2]]
        return claims
    return [_belief_claim(e, payload) for e in entries]
