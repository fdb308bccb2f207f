"""Plain records for a parsed screenplay, shaped as LF-VideoQA Table 15 prescribes.

Table 15 (App. J) asks for, per scene: heading, location, time of day, characters, and ordered
events, each either `DIRECTION: <text>` or `DIALOGUE | <CHARACTER> | <parenthetical or -> |
<text>`, with continuation scenes merged. `Screenplay.to_table15()` renders exactly that shape so
our parser's output can be diffed against the paper's LLM parser output.

Every non-blank input line is accounted for in `Screenplay.line_roles` (line number → role), as
an element or as stripped boilerplate; the property tests check that invariant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EventKind = Literal["direction", "dialogue"]
# Roles a non-blank source line can play.
LINE_ROLES = (
    "heading",
    "action",
    "cue",
    "parenthetical",
    "dialogue",
    "transition",
    "title",
    "page_number",
    "continued",
    "more",
    "note",
    "boneyard",
    "section",
    "synopsis",
    "page_break",
    "centered",
    "lyric",
)


@dataclass
class Event:
    """One Table 15 event: a direction paragraph or one spoken turn."""

    kind: EventKind
    text: str
    character: str | None = None  # canonical cue name, extensions stripped
    parenthetical: str | None = None  # without parentheses; None renders as "-"
    extensions: tuple[str, ...] = ()  # ("V.O.",), ("O.S.",), ...
    source_lines: tuple[int, ...] = ()  # 1-based input line numbers

    def to_table15(self) -> str:
        """The event as one Table 15 output line."""
        if self.kind == "direction":
            return f"- DIRECTION: {self.text}"
        return f"- DIALOGUE | {self.character} | {self.parenthetical or '-'} | {self.text}"


@dataclass
class Scene:
    """One scene; `index` is the 0-based order in the film."""

    index: int
    heading: str | None = None
    location: str | None = None
    time_of_day: str | None = None
    events: list[Event] = field(default_factory=list)
    first_line: int = 0

    @property
    def characters(self) -> list[str]:
        """Speakers in order of first line (Table 15 `Characters:`)."""
        seen: dict[str, None] = {}
        for event in self.events:
            if event.kind == "dialogue" and event.character:
                seen.setdefault(event.character, None)
        return list(seen)

    @property
    def dialogue(self) -> list[Event]:
        return [e for e in self.events if e.kind == "dialogue"]

    def to_table15(self, number: int | None = None) -> str:
        """The scene as one Table 15 block (continuations are already merged)."""
        lines = [
            f"SCENE {self.index + 1 if number is None else number}",
            "Continuation: no",
            f"Heading: {self.heading or ''}".rstrip(),
            f"Location: {self.location or ''}".rstrip(),
            f"Time: {self.time_of_day or ''}".rstrip(),
            f"Characters: {', '.join(self.characters) or '(none)'}",
            "EVENTS:",
        ]
        lines += [event.to_table15() for event in self.events]
        return "\n".join(lines)


@dataclass
class Screenplay:
    """A parsed screenplay: scenes plus the role of every non-blank source line."""

    scenes: list[Scene]
    line_roles: dict[int, str]
    source_format: Literal["text", "fountain"] = "text"
    title: str | None = None
    title_page: dict[str, str] = field(default_factory=dict)

    def to_table15(self) -> str:
        """The whole screenplay in the Table 15 output format."""
        if not self.scenes:
            return "NO SCENES"
        return "\n\n".join(scene.to_table15() for scene in self.scenes)

    @property
    def events(self) -> list[tuple[int, Event]]:
        """(scene index, event) for every event, in film order."""
        return [(scene.index, event) for scene in self.scenes for event in scene.events]

    @property
    def dialogue_count(self) -> int:
        return sum(len(scene.dialogue) for scene in self.scenes)
