"""Tolerant parsers for the strict text formats of Tables 18–21.

Models drift from strict formats in small ways (markdown bullets and bold, "Event 1:", case,
quotes, "None" for "(none)", a stray preamble). These parsers accept such drift, keep what they
can read, and list everything they could not use in `problems`, so the annotation run records
it (table `belief_parse_issues`). A reply with nothing readable at all raises ValueError, which
makes the gateway retry and then record the call as failed with its raw text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PRESENCE_LEVELS = ("on_screen", "offscreen_aware", "offscreen_unaware", "absent_unmentioned")
META_TYPES = ("first_order_about_d", "about_self", "about_third_party")
META_SOURCES = (
    "shared_witnessing",
    "observed_d_told",
    "observed_d_behavior",
    "c_told_d",
    "d_absence",
    "shared_prior_context",
)
CONFIDENCES = ("high", "medium", "low")
_NONE = {"", "(none)", "none", "n/a", "-", "no", "nothing"}
_DECOR = re.compile(r"^[\s>*_#`\-•]*|[\s*_`]*$")
_FIELD = re.compile(r"^\s*[-*•]?\s*\**\s*([A-Za-z][A-Za-z ]*?)\s*\**\s*:\s*\**\s*(.*?)\s*$")
_IDS = re.compile(r"\b(e_\d{3}_\d+|s_\d{3})\b")


@dataclass
class Parsed:
    """Items read from one reply plus what could not be used."""

    items: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    value: dict = field(default_factory=dict)


def _clean(text: str) -> str:
    return _DECOR.sub("", text).strip().strip("\"“”'")


def _is_none(text: str) -> bool:
    return _clean(text).lower() in _NONE


def split_names(text: str) -> list[str]:
    """'A, B and C' -> ['A', 'B', 'C']; '(none)' -> []."""
    if _is_none(text):
        return []
    return [_clean(p) for p in re.split(r",|;|\band\b", text) if _clean(p)]


def canonical_name(name: str, roster: list[str]) -> str | None:
    """The roster's spelling of `name` (case-insensitive), or None."""
    lookup = {r.lower(): r for r in roster}
    return lookup.get(name.strip().lower())


def _fields(block: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in block:
        match = _FIELD.match(line)
        if match:
            found.setdefault(match.group(1).strip().lower(), match.group(2))
    return found


# -- Table 18 ---------------------------------------------------------------------------
_EVENT_HEAD = re.compile(r"^[\s*#>_\-]*event\s*#?\s*(\d+)\s*[:.)\-]?\s*\**\s*$", re.I)


def parse_events(text: str, listed: list[str]) -> Parsed:
    """EVENT N / Description / Participants / Witnesses blocks (Table 18)."""
    result = Parsed()
    if _clean(text).upper().rstrip(".") == "NO EVENTS":
        return result
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if _EVENT_HEAD.match(line):
            blocks.append([])
        elif blocks and line.strip():
            blocks[-1].append(line)
    if not blocks:
        raise ValueError("malformed reply: no 'EVENT N' block and not 'NO EVENTS'")
    for number, block in enumerate(blocks, start=1):
        fields = _fields(block)
        description = _clean(fields.get("description", ""))
        if not description:
            result.problems.append(f"event {number}: no Description line")
            continue
        people = {}
        for role in ("participants", "witnesses"):
            names = []
            for name in split_names(fields.get(role, "")):
                known = canonical_name(name, listed)
                if known:
                    names.append(known)
                else:
                    result.problems.append(
                        f"event {number}: {role[:-1]} {name!r} is not a listed character; dropped"
                    )
            people[role] = names
        result.items.append({"description": description, **people})
    return result


# -- Table 19 ---------------------------------------------------------------------------
def parse_presence(text: str, event_ids: list[str]) -> Parsed:
    """'Presence: ...' and 'Witnessed event IDs: ...' (Table 19)."""
    result = Parsed()
    fields = _fields(text.splitlines())
    raw = fields.get("presence", "")
    level = re.sub(r"[\s\-]+", "_", _clean(raw).lower())
    if level not in PRESENCE_LEVELS:
        found = [p for p in PRESENCE_LEVELS if p in re.sub(r"[\s\-]+", "_", text.lower())]
        if len(found) != 1:
            raise ValueError(f"malformed reply: no presence level in {raw or text[:60]!r}")
        level = found[0]
        result.problems.append(f"presence read from free text: {level}")
    witnessed_text = next((v for k, v in fields.items() if k.startswith("witnessed")), "")
    witnessed = []
    for event_id in _IDS.findall(witnessed_text):
        if event_id in event_ids:
            witnessed.append(event_id)
        else:
            result.problems.append(f"witnessed {event_id} is not an event of this scene; dropped")
    result.value = {"presence": level, "witnessed": list(dict.fromkeys(witnessed))}
    return result


# -- Table 20 ---------------------------------------------------------------------------
_SECTIONS = {
    "told": "told",
    "inferred": "inferred",
    "false beliefs held": "false",
    "false beliefs": "false",
    "revisions": "revisions",
    "revised": "revisions",
}
_SECTION_HEAD = re.compile(
    r"^[\s#*_]*(told|inferred|false beliefs held|false beliefs|revisions)"
    r"[\s*_:]*$",
    re.I,
)


def _items(lines: list[str]) -> list[list[str]]:
    """Split a section body into items: a bullet starts one; blank lines separate them."""
    items: list[list[str]] = []
    fresh = True
    for line in lines:
        if not line.strip():
            fresh = True
            continue
        bullet = re.match(r"^\s*(?:[-*•]|\d+[.)])\s+", line)
        if bullet or fresh:
            items.append([line[bullet.end() :] if bullet else line])
        else:
            items[-1].append(line)
        fresh = False
    return [item for item in items if not (len(item) == 1 and _is_none(item[0]))]


def parse_first_order(text: str) -> Parsed:
    """TOLD / INFERRED / FALSE BELIEFS HELD / REVISIONS (Table 20)."""
    result = Parsed(value={"told": [], "inferred": [], "false": [], "revisions": []})
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        head = _SECTION_HEAD.match(line)
        if head:
            current = _SECTIONS[head.group(1).lower()]
            sections.setdefault(current, [])
        elif current:
            sections[current].append(line)
    if not sections:
        raise ValueError(
            "malformed reply: none of TOLD / INFERRED / FALSE BELIEFS HELD / REVISIONS"
        )
    for name in ("told", "inferred", "false", "revisions"):
        if name not in sections:
            result.problems.append(f"section {name.upper()} missing")
        for index, item in enumerate(_items(sections.get(name, [])), start=1):
            parsed = _FIRST_ORDER_ITEM[name](item)
            if isinstance(parsed, str):
                result.problems.append(f"{name} item {index}: {parsed}")
            else:
                result.value[name].append(parsed)
    return result


def _told(item: list[str]):
    fields = _fields(item)
    proposition = _clean(fields.get("proposition", ""))
    if not proposition:
        return "no Proposition"
    believed = _clean(fields.get("believed", "")).lower()
    return {
        "proposition": proposition,
        "source": _clean(fields.get("source", "")) or None,
        "believed": True
        if believed.startswith("y")
        else False
        if believed.startswith("n")
        else None,
    }


def _inferred(item: list[str]):
    fields = _fields(item)
    claim = _clean(fields.get("claim", ""))
    if not claim:
        return "no Claim"
    confidence = _clean(fields.get("confidence", "")).lower()
    return {
        "claim": claim,
        "basis": _IDS.findall(fields.get("basis", "")),
        "confidence": confidence if confidence in CONFIDENCES else None,
    }


def _false(item: list[str]):
    text = _clean(" ".join(item))
    return {"belief": text} if text else "empty false belief"


def _revision(item: list[str]):
    fields = _fields(item)
    prior = _clean(fields.get("prior", ""))
    revised = _clean(fields.get("revised to", ""))
    if not prior or not revised:
        return "needs Prior and Revised to"
    tag = re.search(r"\[?([BF]\d+)\]?", prior)
    return {
        "prior_tag": tag.group(1) if tag and len(prior) <= 6 else None,
        "prior_text": prior,
        "revised_to": revised,
        "trigger": _IDS.findall(fields.get("trigger", "")),
    }


_FIRST_ORDER_ITEM = {"told": _told, "inferred": _inferred, "false": _false, "revisions": _revision}


# -- Table 21 ---------------------------------------------------------------------------
def parse_meta(text: str, group: list[str], valid_ids: set[str]) -> Parsed:
    """'- About: ...' blocks (Table 21); items without a valid basis are dropped."""
    result = Parsed()
    if _clean(text).upper().rstrip(".") == "NONE":
        return result
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if re.match(r"^\s*[-*•]?\s*\**about\**\s*:", line, re.I):
            blocks.append([line])
        elif blocks and line.strip():
            blocks[-1].append(line)
    if not blocks:
        raise ValueError("malformed reply: no '- About:' block and not NONE")
    for index, block in enumerate(blocks, start=1):
        item = _meta_item(_fields(block), group, valid_ids)
        if isinstance(item, str):
            result.problems.append(f"meta item {index}: {item}; dropped")
        else:
            result.items.append(item)
    return result


def _meta_item(fields: dict[str, str], group: list[str], valid_ids: set[str]):
    about = canonical_name(_clean(fields.get("about", "")), group)
    if about is None:
        return f"About {fields.get('about', '')!r} is not in the target group"
    claim = _clean(fields.get("claim", ""))
    claim = re.sub(
        rf"^{re.escape(about)}\s+(?:believes|knows|thinks)\s+(?:that\s+)?", "", claim, flags=re.I
    )
    kind = _clean(fields.get("type", "")).lower()
    source = _clean(fields.get("source", "")).lower()
    cited = _IDS.findall(fields.get("basis", ""))
    basis = [i for i in cited if i in valid_ids]
    if not claim:
        return "no Claim"
    if kind not in META_TYPES:
        return f"Type {kind!r} is not one of {', '.join(META_TYPES)}"
    if source not in META_SOURCES:
        return f"Source {source!r} is not one of the six sources"
    if not basis:
        return f"no valid basis (cited {cited or 'nothing'})"
    confidence = _clean(fields.get("confidence", "")).lower()
    return {
        "about": about,
        "claim": claim,
        "type": kind,
        "source": source,
        "basis": basis,
        "confidence": confidence if confidence in CONFIDENCES else None,
    }
