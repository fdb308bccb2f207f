"""Context-sets (LF-VideoQA App. F.1, Table 6) and the discard rules, each counted.

A context-set is built for one question type, one center character and one anchor scene, and
is the only input the question writer sees — never the screenplay text. Its fields follow the
names the Stage 1 prompt (Table 23) uses: `holder`, `anchor`, `anchor_location_rivals`,
`name_budget` (spoken by the anchor / `named_later` / `forbidden_names`), the scenes it
carries with summaries, and the belief entries of the type (Table 7, `entries.py`).

Discard rules (App. F.1), applied before any model is called, in this order; the first that
fires is recorded as `discard_reason`:
1. `center_never_named` — the center (any member, for Q1) is never spoken aloud;
2. `cited_events_outside` — an event the entries cite lies outside the carried scenes (or is
   not a known event at all);
3. `center_absent_from_anchor` — belief-state types (Q1–Q8) whose center takes no part in the
   anchor scene;
4. `anchor_interpolated` — the anchor scene has no subtitle match (time only interpolated).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field

from data_access.formats.question_types import BELIEF_STATE_TYPES
from pipelines.qgen import content_rules as rules
from pipelines.qgen.entries import Candidate
from pipelines.qgen.film_view import FilmView

DISCARD_RULES = (
    "center_never_named",
    "cited_events_outside",
    "center_absent_from_anchor",
    "anchor_interpolated",
)
MAX_CARRIED_SCENES = 8
_SCENE_ID = re.compile(r"^s_?(\d+)$", re.IGNORECASE)


@dataclass
class ContextSet:
    """A built context-set: its id, the payload the writer sees, and why it was discarded."""

    context_set_id: str
    film_id: str
    qtype: str
    center: str
    members: list[str]
    anchor_scene: int
    payload: dict
    discard_reason: str | None = None
    # the film's screenplay directions, for the gold check (not part of the writer's payload)
    direction_lines: tuple[str, ...] = field(default=(), repr=False)

    @property
    def kept(self) -> bool:
        return self.discard_reason is None


def context_set_id(film_id: str, candidate: Candidate) -> str:
    """A stable id: the same (film, type, center, anchor, about) always gets the same id."""
    key = "|".join(
        [
            film_id,
            candidate.qtype,
            candidate.center,
            str(candidate.anchor_scene),
            candidate.about or "",
        ]
    )
    return f"cs-{hashlib.sha1(key.encode()).hexdigest()[:12]}"


def name_budget(view: FilmView, anchor_scene: int) -> dict[str, list[str]]:
    """Names spoken by the end of the anchor scene, spoken only later, never spoken (App. F.1)."""
    anchor = view.scenes.get(anchor_scene) or {}
    by_time = anchor.get("end_s") if anchor.get("end_s") is not None else anchor.get("start_s")
    budget = {"spoken_by_anchor": [], "named_later": [], "forbidden_names": []}
    for row in sorted(view.characters, key=lambda r: r["canonical_name"]):
        first = row.get("first_spoken_s")
        if first is None:
            budget["forbidden_names"].append(row["canonical_name"])
        elif by_time is not None and first <= by_time:
            budget["spoken_by_anchor"].append(row["canonical_name"])
        else:
            budget["named_later"].append(row["canonical_name"])
    return budget


def anchor_location_rivals(view: FilmView, anchor_scene: int, members: list[str]) -> int:
    """Other scenes at the anchor's location with the holder (every member) present (Table 23)."""
    location = view.location_key(anchor_scene)
    if not location:
        return 0
    return sum(
        1
        for index in view.scenes
        if index != anchor_scene
        and view.location_key(index) == location
        and all(view.is_present(index, m) for m in members)
    )


def carried_scenes(candidate: Candidate) -> list[int]:
    """The anchor plus the scenes the entries form in, nearest to the anchor first, capped."""
    scenes = {candidate.anchor_scene} | {entry["scene"] for entry in candidate.entries}
    ordered = sorted(scenes, key=lambda s: (abs(s - candidate.anchor_scene), s))
    return sorted(ordered[:MAX_CARRIED_SCENES])


def scene_card(view: FilmView, scene_index: int) -> dict:
    """What the writer sees of a scene: heading, location, time and summary — no text."""
    scene = view.scenes.get(scene_index) or {}
    return {
        "scene": scene_index,
        "heading": scene.get("heading"),
        "location": scene.get("location"),
        "time_s": scene.get("start_s"),
        "summary": scene.get("summary"),
    }


def _cited_scene(view: FilmView, cited: str) -> int | None:
    if cited in view.events:
        return view.events[cited]["scene_index"]
    match = _SCENE_ID.match(cited)
    return int(match.group(1)) if match else None


def discard_reason(view: FilmView, candidate: Candidate, scenes: list[int]) -> str | None:
    """The first discard rule of App. F.1 the candidate breaks, or None."""
    if any(view.first_spoken(member) is None for member in candidate.members):
        return "center_never_named"
    for entry in candidate.entries:
        for cited in entry.get("basis") or []:
            if _cited_scene(view, cited) not in scenes:
                return "cited_events_outside"
    if candidate.qtype in BELIEF_STATE_TYPES and not all(
        view.is_present(candidate.anchor_scene, m) for m in candidate.members
    ):
        return "center_absent_from_anchor"
    if (view.scenes.get(candidate.anchor_scene) or {}).get("time_source") != "matched":
        return "anchor_interpolated"
    return None


def _event_card(view: FilmView, event_id: str) -> dict:
    """An event as the writer sees it; `direction` marks one whose description is a screenplay
    direction (the writer gives no such event as a character's ground)."""
    description = view.events[event_id]["description"]
    card = {
        "event_id": event_id,
        "scene": view.events[event_id]["scene_index"],
        "description": description,
    }
    if view.direction_lines and any(
        rules.direction_problem(sentence, view.direction_lines)
        for sentence in rules.sentences(description)
    ):
        card["direction"] = True
    return card


# Payload fields for our checks and the template writer, not Table 6's context pack: kept out of
# what a model is sent, so the prompt (and its cache key) is the paper's.
CHECK_ONLY_FIELDS = ("dialogue_lines",)


def context_pack(payload: dict) -> dict:
    """The payload as a model sees it (Table 6): without the check-only fields and the events'
    `direction` marks."""
    pack = {k: v for k, v in payload.items() if k not in CHECK_ONLY_FIELDS}
    if "events" in payload:
        pack["events"] = [{k: v for k, v in e.items() if k != "direction"} for e in pack["events"]]
    return pack


def build_context_set(view: FilmView, candidate: Candidate, type_spec: str) -> ContextSet:
    """Assemble the Table 6 payload for a candidate and apply the discard rules."""
    scenes = carried_scenes(candidate)
    payload = {
        "film": view.title,
        "question_type": candidate.qtype,
        "type_spec": type_spec,
        "holder": candidate.center,
        "members": candidate.members,
        "about": candidate.about,
        "anchor": scene_card(view, candidate.anchor_scene),
        "anchor_location_rivals": anchor_location_rivals(
            view, candidate.anchor_scene, candidate.members
        ),
        "name_budget": name_budget(view, candidate.anchor_scene),
        "scenes": [scene_card(view, s) for s in scenes],
        "belief_entries": candidate.entries,
        # dialogue lines per member (the centre check: a speaking character); None: no lines
        "dialogue_lines": {m: view.dialogue_lines_of(m) for m in candidate.members},
        "events": [
            _event_card(view, e)
            for e in sorted({c for en in candidate.entries for c in en.get("basis") or []})
            if e in view.events
        ],
    }
    return ContextSet(
        context_set_id=context_set_id(view.film_id, candidate),
        film_id=view.film_id,
        qtype=candidate.qtype,
        center=candidate.center,
        members=candidate.members,
        anchor_scene=candidate.anchor_scene,
        payload=payload,
        discard_reason=discard_reason(view, candidate, scenes),
        direction_lines=view.direction_lines,
    )


def discard_counts(context_sets: list[ContextSet]) -> dict[str, int]:
    """How many context-sets each rule discarded, plus `kept` and `total`."""
    counts = Counter(cs.discard_reason or "kept" for cs in context_sets)
    return {rule: counts.get(rule, 0) for rule in DISCARD_RULES + ("kept",)} | {
        "total": len(context_sets)
    }
