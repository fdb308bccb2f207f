"""A film's stored records as plain Python objects, indexed the way context-sets need them.

Built once per generation run from `data_access.tables.qgen_records.film_records` (current
runs only).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from data_access.tables.qgen_records import FilmRecords


def _clean(value):
    """NaN / NA from pandas -> None; numpy arrays -> lists."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    try:
        import pandas as pd

        if pd.isna(value) is True:
            return None
    except (TypeError, ValueError):
        pass
    return value


def _records(frame) -> list[dict]:
    return [{key: _clean(value) for key, value in row.items()} for row in frame.to_dict("records")]


@dataclass
class FilmView:
    """Scenes, characters, presence, beliefs, meta-beliefs and events of one film."""

    film_id: str
    title: str
    runtime_s: float | None
    scenes: dict[int, dict]
    characters: list[dict]
    presence: dict[tuple[int, str], str]
    beliefs: list[dict]
    meta_beliefs: list[dict]
    events: dict[str, dict]
    events_by_scene: dict[int, list[dict]] = field(default_factory=dict)
    # The screenplay's lines, for the question checks: dialogue lines per speaker (None when the
    # film has no screenplay lines at all) and the direction (action / setting) lines.
    dialogue_counts: dict[str, int] | None = None
    direction_lines: tuple[str, ...] = ()

    @classmethod
    def from_records(cls, records: FilmRecords) -> FilmView:
        events = {e["event_id"]: e for e in _records(records.scene_events)}
        by_scene: dict[int, list[dict]] = defaultdict(list)
        for event in events.values():
            by_scene[event["scene_index"]].append(event)
        return cls(
            film_id=records.film["film_id"],
            title=records.film["title"],
            runtime_s=_clean(records.film.get("runtime_s")),
            scenes={s["scene_index"]: s for s in _records(records.scenes)},
            characters=_records(records.characters),
            presence={
                (p["scene_index"], p["character"]): p["status"] for p in _records(records.presence)
            },
            beliefs=_records(records.beliefs),
            meta_beliefs=_records(records.meta_beliefs),
            events=events,
            events_by_scene=dict(by_scene),
            **_screenplay(records.script_lines),
        )

    def dialogue_lines_of(self, name: str) -> int | None:
        """Dialogue lines the film gives `name` (any of its aliases); None without lines."""
        if self.dialogue_counts is None:
            return None
        row = self.character(name)
        names = (
            {name.upper()}
            | {n.upper() for n in ([row["canonical_name"]] + list(row.get("aliases") or []))}
            if row
            else {name.upper()}
        )
        return sum(self.dialogue_counts.get(n, 0) for n in names)

    # -- questions a context-set builder asks ----------------------------------------------
    def scene_time(self, scene_index: int) -> float | None:
        return (self.scenes.get(scene_index) or {}).get("start_s")

    def film_end(self) -> float | None:
        ends = [s.get("end_s") for s in self.scenes.values() if s.get("end_s") is not None]
        return self.runtime_s or (max(ends) if ends else None)

    def is_present(self, scene_index: int, character: str) -> bool:
        """On screen, or taking part in one of the scene's events (Table 19's top rung)."""
        if self.presence.get((scene_index, character)) == "on_screen":
            return True
        return any(
            character in (e.get("participants") or [])
            for e in self.events_by_scene.get(scene_index, [])
        )

    def character(self, name: str) -> dict | None:
        """The character row whose canonical name or alias is `name` (case-insensitive)."""
        lowered = name.lower()
        for row in self.characters:
            names = [row["canonical_name"]] + list(row.get("aliases") or [])
            if lowered in (n.lower() for n in names):
                return row
        return None

    def first_spoken(self, name: str) -> float | None:
        row = self.character(name)
        return row.get("first_spoken_s") if row else None

    def beliefs_of(self, holder: str) -> list[dict]:
        return [b for b in self.beliefs if b["holder"] == holder]

    def active_at(self, holder: str, scene_index: int) -> list[dict]:
        """Beliefs the holder has formed by the scene and not revised before it."""
        return [
            b
            for b in self.beliefs_of(holder)
            if b["scene_index"] <= scene_index
            and (b.get("revised_at_scene") is None or b["revised_at_scene"] > scene_index)
        ]

    def for_questions(self) -> tuple[FilmView, dict[str, int]]:
        """This view without what a question may not be built on, and how much was left out:
        beliefs held or told by a non-character (a voice, a crowd, a role description), and
        beliefs or meta-beliefs whose text is a screenplay direction or a pasted line
        (`content_rules`). The checks reject the questions these would make; leaving them out
        here keeps the writer from writing them."""
        from dataclasses import replace

        from pipelines.qgen import content_rules as rules
        from pipelines.qgen.template_claims import _prop

        def centre_ok(name: str) -> bool:
            # the name's form only: whether a named character speaks is for the check (a
            # silent one's context-set may still be discarded by App. F.1's rules first)
            return rules.centre_problem(name) is None

        def text_ok(text: str) -> bool:
            return not (
                rules.direction_problem(text, self.direction_lines)
                or rules.person_problem(text)
                # as the writer will put it after "that" (a sentence-initial "The" is lowered)
                or rules.pasted_sentence_problem("that " + _prop(text))
                or rules.repeated_name_problem(text)
                or rules.non_character_mention_problem(text)
            )

        beliefs = [
            b
            for b in self.beliefs
            if centre_ok(b["holder"])
            and (not b.get("source_character") or centre_ok(b["source_character"]))
            and text_ok(b["content"])
        ]
        metas = [
            m
            for m in self.meta_beliefs
            if centre_ok(m["holder"]) and centre_ok(m["about"]) and text_ok(m["claim"])
        ]
        left_out = {
            "beliefs": len(self.beliefs) - len(beliefs),
            "meta_beliefs": len(self.meta_beliefs) - len(metas),
        }
        return replace(self, beliefs=beliefs, meta_beliefs=metas), left_out

    def holders(self) -> list[str]:
        return sorted(
            {b["holder"] for b in self.beliefs} | {m["holder"] for m in self.meta_beliefs}
        )

    def location_key(self, scene_index: int) -> str:
        scene = self.scenes.get(scene_index) or {}
        return " ".join(str(scene.get("location") or scene.get("heading") or "").lower().split())


def _screenplay(lines) -> dict:
    """Dialogue counts per speaker and direction texts from the film's screenplay lines."""
    if lines is None or lines.empty:
        return {}
    dialogue = lines[lines["kind"] == "dialogue"]
    counts = dialogue["character"].dropna().str.upper().value_counts().to_dict()
    directions = tuple(lines.loc[lines["kind"] == "direction", "text"].dropna().astype(str))
    return {
        "dialogue_counts": {str(k): int(v) for k, v in counts.items()},
        "direction_lines": directions,
    }
