"""Parser for plain-text screenplays as found in the wild (IMSDb style).

LF-VideoQA (App. C, Table 15) reads page images with an LLM, "using indentation to separate
scene headings, action lines, character cues, parentheticals, and dialogue". We do the same
deterministically on the text: an indentation profile (action vs dialogue column) is measured
from the file itself, and content rules (sluglines, upper-case cues, parentheses, transitions)
decide the rest, so flush-left scripts without indentation also parse.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from pipelines.preprocess.common import (
    clean_text,
    is_boilerplate,
    is_slugline,
    is_transition,
    is_upper,
    parse_cue,
    split_heading,
    strip_scene_numbers,
)
from pipelines.preprocess.model import Event, Scene, Screenplay

# A headless, dialogue-free opening block is front matter when it talks about the document.
FRONT_MATTER_RE = re.compile(
    r"\b(DRAFT|SCRIPT|NOTE|COPYRIGHT|REVISED|WRITTEN BY|SCREENPLAY)\b", re.I
)


@dataclass
class IndentProfile:
    """The action and dialogue columns of a script (None when the script is flush-left)."""

    action: int | None = None
    dialogue: int | None = None

    @property
    def usable(self) -> bool:
        return (
            self.action is not None
            and self.dialogue is not None
            and self.dialogue - self.action >= 4
        )

    def is_action_column(self, indent: int) -> bool:
        return self.usable and indent <= self.action + 2

    def right_of_action(self, indent: int) -> bool:
        return not self.usable or indent > self.action + 3


def normalise_lines(text: str) -> list[str]:
    """CRLF/CR to LF, tabs expanded, form feeds and trailing spaces dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\ufeff", "")
    return [line.expandtabs(8).rstrip() for line in text.split("\n")]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def measure_indents(lines: list[str]) -> IndentProfile:
    """Most common indent of long prose lines (action) and of lines under a cue (dialogue)."""
    action = Counter(_indent(x) for x in lines if len(x.strip()) > 45 and not is_upper(x))
    dialogue: Counter[int] = Counter()
    for before, line in zip(lines, lines[1:]):
        if (
            line.strip()
            and not line.strip().startswith("(")
            and is_upper(before.strip())
            and parse_cue(before)
            and not is_slugline(before)
            and not is_transition(before)
        ):
            dialogue[_indent(line)] += 1
    return IndentProfile(
        action.most_common(1)[0][0] if action else None,
        dialogue.most_common(1)[0][0] if dialogue else None,
    )


@dataclass
class _Builder:
    """Accumulates scenes and events while the lines are walked once."""

    scenes: list[Scene] = field(default_factory=lambda: [Scene(index=0)])
    roles: dict[int, str] = field(default_factory=dict)
    paragraph: list[tuple[int, str]] = field(default_factory=list)
    speech: Event | None = None
    speech_lines: list[str] = field(default_factory=list)
    parentheticals: list[str] = field(default_factory=list)
    only_boilerplate_since_speech: bool = False
    page_break_since_speech: bool = False

    @property
    def scene(self) -> Scene:
        return self.scenes[-1]

    def flush_paragraph(self) -> None:
        if self.paragraph:
            text = clean_text(" ".join(t for _, t in self.paragraph))
            self.scene.events.append(
                Event("direction", text, source_lines=tuple(n for n, _ in self.paragraph))
            )
            self.paragraph = []

    def flush_speech(self) -> None:
        if self.speech is not None:
            self.speech.text = clean_text(" ".join(self.speech_lines))
            self.speech.parenthetical = "; ".join(self.parentheticals) or None
            self.speech = None
            self.only_boilerplate_since_speech = True

    def flush(self) -> None:
        self.flush_paragraph()
        self.flush_speech()

    def new_scene(self, heading: str, number: int) -> None:
        self.flush()
        location, time_of_day = split_heading(heading)
        if not self.scene.events and self.scene.heading is None:
            self.scenes.pop()  # an empty headless opening scene
        self.scenes.append(
            Scene(len(self.scenes), heading, location, time_of_day, first_line=number)
        )
        self.only_boilerplate_since_speech = False

    def start_speech(self, name: str, extensions: tuple[str, ...], number: int) -> None:
        self.flush()
        previous = self.scene.events[-1] if self.scene.events else None
        resumes = (
            previous is not None
            and previous.kind == "dialogue"
            and previous.character == name
            and self.only_boilerplate_since_speech
            and self.page_break_since_speech
            and any(
                e.upper().replace("’", "'") in ("CONT'D", "CONTD", "CONTINUING") for e in extensions
            )
        )
        self.page_break_since_speech = False  # (MORE)/CONTINUED seen after this speech only
        if resumes:
            # (MORE) ... NAME (CONT'D) across a page break: the same turn continues (Table 15 rule
            # 4).
            self.speech, self.speech_lines = previous, [previous.text]
            self.parentheticals = [previous.parenthetical] if previous.parenthetical else []
            previous.source_lines += (number,)
            return
        self.speech = Event(
            "dialogue", "", character=name, extensions=extensions, source_lines=(number,)
        )
        self.scene.events.append(self.speech)
        self.speech_lines, self.parentheticals = [], []


def _next_nonblank(lines: list[str], index: int) -> str:
    return lines[index + 1] if index + 1 < len(lines) else ""


def parse_screenplay_text(text: str) -> Screenplay:
    """Parse an IMSDb-style plain-text screenplay into Table 15 scenes.

    Args:
        text: the whole screenplay, any line endings, tabs or spaces.

    Returns:
        The screenplay; `line_roles` names the role of every non-blank line (1-based).
    """
    lines = normalise_lines(text)
    profile = measure_indents(lines)
    build = _Builder()
    title_end = find_title_end(lines)
    for index in range(title_end):
        if lines[index].strip():
            build.roles[index + 1] = is_boilerplate(lines[index].strip()) or "title"
    open_paren = False
    for index, raw in enumerate(lines):
        number, stripped = index + 1, raw.strip()
        if index < title_end:
            continue
        if not stripped:
            build.flush()
            open_paren = False
            continue
        boiler = is_boilerplate(stripped)
        if boiler:
            build.roles[number] = boiler
            build.page_break_since_speech = True
            continue
        if build.speech is not None and not profile.is_action_column(_indent(raw)):
            if open_paren or stripped.startswith("("):
                build.roles[number] = "parenthetical"
                _add_parenthetical(build, stripped, open_paren)
                open_paren = not stripped.endswith(")")
                continue
            build.roles[number] = "dialogue"
            build.speech_lines.append(stripped)
            build.speech.source_lines += (number,)
            continue
        build.flush_speech()
        _classify_line(build, lines, index, raw, profile)
    build.flush()
    return _finish(build)


def find_title_end(lines: list[str]) -> int:
    """Index of the first line after the title page.

    The title page is what comes before the first heading, cue, transition or prose paragraph
    of two or more lines (Table 15 rule 5: title pages hold no scenes).
    """
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped:
            index += 1
            continue
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if (
            is_slugline(stripped)
            or is_transition(stripped)
            or (
                following
                and (parse_cue(stripped) and is_upper(stripped) or not is_boilerplate(following))
            )
        ):
            return index
        index += 1
    return len(lines)


def _add_parenthetical(build: _Builder, stripped: str, continuing: bool) -> None:
    text = stripped.strip("()").strip() if not continuing else stripped.rstrip(")").strip()
    if continuing and build.parentheticals:
        build.parentheticals[-1] = clean_text(build.parentheticals[-1] + " " + text)
    else:
        build.parentheticals.append(clean_text(stripped.lstrip("(").rstrip(")")))


def _classify_line(
    build: _Builder, lines: list[str], index: int, raw: str, profile: IndentProfile
) -> None:
    """A line outside a speech: heading, transition, cue or action."""
    number, stripped = index + 1, raw.strip()
    if is_upper(stripped) and is_slugline(stripped):
        build.roles[number] = "heading"
        build.new_scene(strip_scene_numbers(stripped), number)
        return
    if is_transition(stripped):
        build.flush()
        build.roles[number] = "transition"
        return
    following = _next_nonblank(lines, index).strip()
    cue = parse_cue(stripped) if is_upper(stripped) else None
    if (
        cue
        and following
        and not is_boilerplate(following)
        and profile.right_of_action(_indent(raw))
        and not (profile.usable and profile.is_action_column(_indent(lines[index + 1])))
    ):
        build.roles[number] = "cue"
        build.start_speech(cue[0], cue[1], number)
        return
    build.roles[number] = "action"
    build.only_boilerplate_since_speech = False
    build.paragraph.append((number, stripped))


def _finish(build: _Builder) -> Screenplay:
    """Drop empty scenes, turn a dialogue-free headless opening into title matter, renumber."""
    scenes = [s for s in build.scenes if s.events or s.heading]
    if (
        scenes
        and scenes[0].heading is None
        and not scenes[0].dialogue
        and len(scenes) > 1
        and FRONT_MATTER_RE.search(" ".join(e.text for e in scenes[0].events))
    ):
        for event in scenes[0].events:
            for number in event.source_lines:
                build.roles[number] = "title"
        scenes = scenes[1:]
    for position, scene in enumerate(scenes):
        scene.index = position
    return Screenplay(scenes, build.roles, "text")
