"""The offline 'rules' backend: presence, witnessed events and told beliefs from a parsed
screenplay already in the store (scenes + script lines), without any model.

It follows the rules the LF-VideoQA prompts state, where they can be read off the text:
- scene events (Table 18): one event per script line (a direction paragraph or a spoken line),
  ids `e_<scene:03d>_<n>`; witnesses = the characters present, minus V.O.-only speakers and
  anyone a direction marks unconscious / asleep / knocked out (until the scene ends);
- presence ladder (Table 19), top-down: on_screen = speaks in person (O.S./O.C. count, V.O. does
  not) or a direction places them (`presence`: a possessive, a depiction, a quotation, a
  surname inside another character's name or a dead character is a mention, not presence);
  offscreen_aware = speaks only by V.O. (a phone voice is a concrete channel) or was on_screen
  in the previous scene at the same location and is not shown leaving; offscreen_unaware =
  named in this scene's dialogue or directions while absent (the scene bears on them);
  absent_unmentioned = everyone else;
- told (Table 20, TOLD): each story claim a spoken line makes (`rules.claims.story_claims`:
  statements only, first and second person resolved to names, about someone or something in
  particular) is told to each other witness, believed left open. Before spoken claims, every
  line of four words or more was stored verbatim as a belief; `storyscope gold-eval` scores both.
Names in directions match a roster name in capitals or title case only ("GITTES", "Gittes"),
so "a secretary" does not place SECRETARY in the scene. Written here: no library does this.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

import pandas as pd

from pipelines.beliefs.rules import presence
from pipelines.beliefs.rules.claims import story_claims

BACKEND = "rules"
_PHONE = re.compile(
    r"\b(?:v\.?\s?o\.?|voice[- ]over|on (?:the )?phone|over (?:the )?phone|"
    r"filtered|phone|radio|intercom|recorded|tape|answering machine)\b",
    re.I,
)
_OFFSCREEN = re.compile(r"\b(?:o\.?\s?s\.?|o\.?\s?c\.?|off(?:-| )?screen|off)\b", re.I)
_INCAPACITATED = (
    r"(?:unconscious|asleep|sleeping|passes out|passed out|knocked out|out cold|"
    r"blindfolded|faints|collapses)"
)


@dataclass
class ScriptLine:
    """One stored script line with its voice mode: in_person | offscreen | voice_over."""

    line_index: int
    kind: str
    text: str
    character: str | None = None
    parenthetical: str | None = None
    mode: str = "in_person"


@dataclass
class SceneAnnotation:
    """The rules backend's output for one scene."""

    scene_index: int
    events: list[dict] = field(default_factory=list)
    presence: dict[str, str] = field(default_factory=dict)
    witnessed: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    told: list[dict] = field(default_factory=list)
    # who the directions have said is dead by the scene's end (carried to the next scene)
    dead: set[str] = field(default_factory=set)


def voice_mode(
    character: str | None,
    parenthetical: str | None,
    extensions: tuple[str, ...] = (),
    raw_cue: str | None = None,
) -> str:
    """How a spoken line is delivered (Table 18/19: V.O. is narration, O.S. is presence)."""
    marks = " ".join([*extensions, parenthetical or ""])
    if any(e.replace(" ", "").upper() in ("V.O.", "VO") for e in extensions) or _PHONE.search(
        marks
    ):
        return "voice_over"
    if _OFFSCREEN.search(" ".join(extensions)) or (
        raw_cue and re.search(r"\bVOICE$", raw_cue, re.I)
    ):
        return "offscreen"
    return "in_person"


def split_group(name: str | None) -> list[str]:
    """A joint cue ("Phoebe, Ross, Chandler, and Joey", "JOEY/CHANDLER") -> its speakers."""
    if not name:
        return []
    parts = [p.strip() for p in re.split(r",|/|&|\band\b", name) if p.strip()]
    return parts if len(parts) > 1 else [name.strip()]


def name_pattern(names: list[str]) -> re.Pattern | None:
    """A pattern matching any of `names` in capitals or title case, as a whole word."""
    forms = set()
    for name in names:
        clean = re.sub(r"(?:'S|'|’S|’)\s+VOICE$", "", name.strip(), flags=re.I)
        if len(clean) < 2:
            continue
        forms |= {clean.upper(), clean.title()}
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![\w'])(?:{alternatives})(?![\w])")


class Roster:
    """The film's characters and how to spot each in text."""

    def __init__(self, names: dict[str, list[str]]):
        self.names = names
        self.patterns = {
            c: p for c, aliases in names.items() if (p := name_pattern([c, *aliases])) is not None
        }

    def mentioned(self, text: str) -> list[str]:
        """Characters named in `text`, in roster order."""
        return [c for c, pattern in self.patterns.items() if pattern.search(text)]

    def placed(self, text: str, dead: set[str] = frozenset()) -> list[str]:
        """Characters a direction puts on screen, not merely mentions (`presence`)."""
        return presence.placed(text, self.patterns, dead)

    def deaths(self, text: str) -> list[str]:
        """Characters a direction says are dead (`presence`)."""
        return presence.deaths(text, self.patterns)

    def incapacitated(self, text: str) -> list[str]:
        """Characters a direction marks as unable to perceive."""
        found = []
        for character, pattern in self.patterns.items():
            for match in pattern.finditer(text):
                window = text[match.end() : match.end() + 60]
                if re.match(rf"[^.;]*?\b{_INCAPACITATED}\b", window, re.I):
                    found.append(character)
                    break
        return found


def annotate_scene(
    scene_index: int,
    lines: list[ScriptLine],
    roster: Roster,
    previous: SceneAnnotation | None,
    same_place_as_previous: bool,
) -> SceneAnnotation:
    """Events, presence, witnessed events and told lines of one scene."""
    result = SceneAnnotation(scene_index)
    spoken = [(line, split_group(line.character)) for line in lines if line.kind == "dialogue"]
    speakers = {name for _, names in spoken for name in names}
    in_person = {name for line, names in spoken if line.mode != "voice_over" for name in names}
    in_directions, result.dead = _placed_by_directions(lines, roster, previous)
    present = in_person | in_directions
    voice_only = set(speakers) - in_person
    mentioned = {c for ln in lines for c in roster.mentioned(ln.text)} - present
    _set_presence(result, roster, present, voice_only, mentioned, previous, same_place_as_previous)
    out_of_it: set[str] = set()
    for number, line in enumerate(lines, start=1):
        event_id = f"e_{scene_index:03d}_{number}"
        if line.kind == "direction":
            out_of_it |= set(roster.incapacitated(line.text)) | set(roster.deaths(line.text))
        witnesses = sorted(present - out_of_it)
        talkers = split_group(line.character) if line.kind == "dialogue" else []
        participants = talkers or roster.mentioned(line.text)
        description = f"{line.character}: {line.text}" if line.kind == "dialogue" else line.text
        result.events.append(
            {
                "event_id": event_id,
                "scene_index": scene_index,
                "ord": number,
                "description": description,
                "participants": participants,
                "witnesses": witnesses,
            }
        )
        for character in witnesses:
            result.witnessed[character].append(event_id)
        if line.kind == "dialogue" and line.mode != "voice_over":
            _add_told(result, line, talkers, witnesses, event_id)
    return result


def _placed_by_directions(lines, roster, previous) -> tuple[set[str], set[str]]:
    """Who the scene's directions place on screen, and who is dead at its end. Read in order:
    a death counts from its own line on; speaking in person undoes it (`presence`)."""
    dead = set(previous.dead) if previous is not None else set()
    placed: set[str] = set()
    for line in lines:
        if line.kind == "direction":
            dead |= set(roster.deaths(line.text))
            placed |= set(roster.placed(line.text, dead))
        elif line.mode != "voice_over":
            dead -= set(split_group(line.character))
    return placed, dead


def _add_told(result, line, talkers, witnesses, event_id) -> None:
    """One told belief per story claim of the line, for each listener (rules.claims)."""
    listeners = [w for w in witnesses if w not in talkers]
    speaker = talkers[0] if talkers else line.character
    for claim in story_claims(line.text, speaker, listeners):
        for listener in listeners:
            result.told.append(
                {
                    "holder": listener,
                    "source": line.character,
                    "content": claim,
                    "event_id": event_id,
                }
            )


def _set_presence(result, roster, present, voice_only, mentioned, previous, same_place) -> None:
    stayed = set()
    if previous is not None and same_place:
        stayed = {c for c, s in previous.presence.items() if s == "on_screen"}
    for character in roster.names:
        if character in present:
            status = "on_screen"
        elif character in voice_only or character in stayed:
            status = "offscreen_aware"
        elif character in mentioned:
            status = "offscreen_unaware"
        else:
            status = "absent_unmentioned"
        result.presence[character] = status


def lines_from_frame(
    frame: pd.DataFrame, voices: dict[int, tuple] | None = None
) -> dict[int, list[ScriptLine]]:
    """Stored script lines grouped by scene, each with its voice mode.

    Args:
        frame: `data_access.tables.belief_records.film_scene_text` rows.
        voices: dialogue ordinal -> (extensions, raw cue), as stored at ingest (`stored_voices`).
    """
    scenes: dict[int, list[ScriptLine]] = defaultdict(list)
    dialogue_ordinal = 0
    for row in frame.itertuples(index=False):
        line = ScriptLine(
            int(row.line_index), row.kind, row.text, _text(row.character), _text(row.parenthetical)
        )
        if line.kind == "dialogue":
            extensions, raw_cue = (voices or {}).get(dialogue_ordinal, ((), None))
            line.mode = voice_mode(line.character, line.parenthetical, extensions, raw_cue)
            dialogue_ordinal += 1
        scenes[int(row.scene_index)].append(line)
    return scenes


def _text(value) -> str | None:
    missing = value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value))
    return None if missing else str(value)


def stored_voices(frame: pd.DataFrame) -> dict[int, tuple] | None:
    """Cue extensions (V.O., O.S.) and the cue as written of every spoken line of
    `film_scene_text` rows, as ingest stored them; None when the store did not record them
    (lines ingested before the cues were kept, or imported from a release that has none)."""
    if "cue_extensions" not in frame:
        return None
    spoken = frame[frame["kind"] == "dialogue"]
    extensions = [_listed(value) for value in spoken["cue_extensions"].tolist()]
    if all(value is None for value in extensions):
        return None
    return {
        i: (found or (), _text(cue))
        for i, (found, cue) in enumerate(zip(extensions, spoken["cue"].tolist()))
    }


def _listed(value) -> tuple[str, ...] | None:
    """A stored list as a tuple; None for a NULL (None, NA or NaN, as the frame holds it)."""
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return None
    return tuple(str(item) for item in value)
