"""Fountain parser (the open plain-text screenplay spec, fountain.io).

Elements follow the reference parser's element list (nyousefi/Fountain, whose Big Fish tests
give element index → type; tests/pipelines/preprocess/test_preprocess_fountain.py checks them): a
title page of
`Key: value` pairs, then paragraphs classified as Scene Heading, Action, Character, Dialogue,
Parenthetical, Transition, Page Break, Section Heading, Synopsis, Comment (notes), Boneyard and
Lyrics. Centred text (`> text <`) is Action with `centered=True`, as in the reference parser.
`fountain_to_screenplay` turns the elements into Table 15 scenes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.preprocess.common import SLUG_RE, clean_text, is_upper, parse_cue, split_heading
from pipelines.preprocess.model import Event, Scene, Screenplay

TITLE_KEY_RE = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*(.*)$")
# Keys the spec and common tools use; a first line like "CUT TO:" is not a title page.
TITLE_KEYS = {
    "title",
    "credit",
    "author",
    "authors",
    "source",
    "draft date",
    "date",
    "contact",
    "copyright",
    "notes",
    "revision",
    "format",
    "font",
    "watermark",
}
PAGE_BREAK_RE = re.compile(r"^\s*={3,}\s*$")
SCENE_NUMBER_RE = re.compile(r"\s*#([^#\s]+)#\s*$")
INLINE_NOTE_RE = re.compile(r"\[\[.*?\]\]")
EMPHASIS_RE = re.compile(r"(\*{1,3}|(?<!\w)_|_(?!\w))")


@dataclass
class FountainElement:
    """One element of a Fountain document, with the 1-based source lines it came from."""

    type: str
    text: str
    lines: tuple[int, ...]
    scene_number: str | None = None
    centered: bool = False
    dual: bool = False
    depth: int = 0


@dataclass
class FountainDocument:
    title_page: list[tuple[str, str]]
    elements: list[FountainElement]
    roles: dict[int, str]


def _title_page(lines: list[str], roles: dict[int, str]) -> tuple[list[tuple[str, str]], int]:
    """Leading `Key: value` block (values may continue on indented lines); returns (pairs, next)."""
    first = TITLE_KEY_RE.match(lines[0]) if lines else None
    if not first or first.group(1).strip().lower() not in TITLE_KEYS:
        return [], 0
    pairs: list[tuple[str, list[str]]] = []
    index = 0
    while index < len(lines) and lines[index].strip():
        match = TITLE_KEY_RE.match(lines[index])
        if match and not lines[index].startswith((" ", "\t")):
            pairs.append((match.group(1), [match.group(2)] if match.group(2).strip() else []))
        elif pairs:
            pairs[-1][1].append(lines[index].strip())
        roles[index + 1] = "title"
        index += 1
    return [(key, "\n".join(v for v in values if v)) for key, values in pairs], index


def _strip_boneyard(lines: list[str], roles: dict[int, str]) -> list[str]:
    """Blank out /* ... */ spans (they are not part of the script), recording their lines."""
    out, inside = [], False
    for number, line in enumerate(lines, 1):
        text, kept = line, ""
        while text:
            if inside:
                end = text.find("*/")
                if end < 0:
                    text = ""
                    break
                text, inside = text[end + 2 :], False
            else:
                start = text.find("/*")
                if start < 0:
                    kept, text = kept + text, ""
                else:
                    kept, text, inside = kept + text[:start], text[start + 2 :], True
        if line.strip() and (inside or kept != line) and not kept.strip():
            roles[number] = "boneyard"
        out.append(kept if kept.strip() or line.strip() == "" else "")
    return out


def parse_fountain_elements(text: str) -> FountainDocument:
    """Split a Fountain document into its title page and typed elements."""
    roles: dict[int, str] = {}
    raw = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").split("\n")
    title, start = _title_page(raw, roles)
    lines = _strip_boneyard(raw, roles)
    elements: list[FountainElement] = []
    index = start
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        prev_blank = index == start or not lines[index - 1].strip()
        index = _read_element(lines, index, prev_blank, elements, roles)
    return FountainDocument(title, elements, roles)


def _mark(roles: dict[int, str], numbers: range | list[int], role: str) -> tuple[int, ...]:
    for number in numbers:
        roles[number] = role
    return tuple(numbers)


def _read_element(
    lines: list[str],
    index: int,
    prev_blank: bool,
    elements: list[FountainElement],
    roles: dict[int, str],
) -> int:
    """Classify the element starting at `index`; append it; return the next line index."""
    line, number = lines[index], index + 1
    stripped = line.strip()
    next_blank = index + 1 >= len(lines) or not lines[index + 1].strip()
    single = _single_line_element(line, stripped, prev_blank, next_blank)
    if single is not None:
        kind, text, extra = single
        role = {
            "Scene Heading": "heading",
            "Transition": "transition",
            "Page Break": "page_break",
            "Section Heading": "section",
            "Synopsis": "synopsis",
        }[kind]
        elements.append(FountainElement(kind, text, _mark(roles, [number], role), **extra))
        return index + 1
    if stripped.startswith("[[") and _note_end(lines, index) is not None:
        end = _note_end(lines, index)
        body = " ".join(line.strip() for line in lines[index : end + 1])
        elements.append(
            FountainElement(
                "Comment",
                body.strip()[2:-2].strip(),
                _mark(roles, list(range(number, end + 2)), "note"),
            )
        )
        return end + 1
    if prev_blank and not next_blank and _is_character(stripped):
        return _read_dialogue(lines, index, elements, roles)
    return _read_action(lines, index, elements, roles)


def _single_line_element(line: str, stripped: str, prev_blank: bool, next_blank: bool):
    """(type, text, extra fields) for one-line elements, else None."""
    if PAGE_BREAK_RE.match(line):
        return "Page Break", "", {}
    if stripped.startswith("#"):
        depth = len(stripped) - len(stripped.lstrip("#"))
        return "Section Heading", stripped.lstrip("#").strip(), {"depth": depth}
    if stripped.startswith("=") and not stripped.startswith("=="):
        return "Synopsis", stripped[1:].strip(), {}
    if stripped.startswith(">") and not stripped.endswith("<"):
        return "Transition", stripped[1:].strip(), {}
    heading = stripped[1:] if stripped.startswith(".") and not stripped.startswith("..") else None
    if heading is None and prev_blank and next_blank and SLUG_RE.match(stripped):
        heading = stripped
    if heading is not None:
        match = SCENE_NUMBER_RE.search(heading)
        number = match.group(1) if match else None
        return "Scene Heading", SCENE_NUMBER_RE.sub("", heading).strip(), {"scene_number": number}
    if (
        prev_blank
        and next_blank
        and line == line.rstrip()
        and is_upper(stripped)
        and stripped.endswith("TO:")
    ):
        return "Transition", stripped, {}
    return None


def _note_end(lines: list[str], index: int) -> int | None:
    """Last line index of a stand-alone [[note]] paragraph starting at `index`, else None."""
    for end in range(index, len(lines)):
        if not lines[end].strip():
            return None
        if lines[end].rstrip().endswith("]]"):
            return end
    return None


def _is_character(stripped: str) -> bool:
    if stripped.startswith("@"):
        return True
    if stripped.startswith(("!", "~", ">", "[[")):
        return False
    name = re.sub(r"\(.*?\)", "", stripped).rstrip("^ ").strip()
    return bool(name) and is_upper(name) and parse_cue(stripped.rstrip("^ ")) is not None


def _read_dialogue(
    lines: list[str], index: int, elements: list[FountainElement], roles: dict[int, str]
) -> int:
    """Character cue, then parentheticals and dialogue until a blank line ("  " continues)."""
    cue = lines[index].strip()
    dual = cue.endswith("^")
    elements.append(
        FountainElement(
            "Character",
            cue.rstrip("^").strip().lstrip("@"),
            _mark(roles, [index + 1], "cue"),
            dual=dual,
        )
    )
    index += 1
    speech: list[int] = []
    while index < len(lines) and (lines[index].strip() or lines[index] == "  "):
        stripped = lines[index].strip()
        if stripped.startswith("(") and stripped.endswith(")"):
            _flush_speech(lines, speech, elements, roles)
            elements.append(
                FountainElement(
                    "Parenthetical", stripped, _mark(roles, [index + 1], "parenthetical")
                )
            )
        else:
            speech.append(index)
        index += 1
    _flush_speech(lines, speech, elements, roles)
    return index


def _flush_speech(lines, speech: list[int], elements, roles) -> None:
    if speech:
        text = "\n".join(lines[i].strip() for i in speech)
        role = "lyric" if all(lines[i].strip().startswith("~") for i in speech) else "dialogue"
        elements.append(
            FountainElement("Dialogue", text, _mark(roles, [i + 1 for i in speech], role))
        )
        speech.clear()


def _read_action(
    lines: list[str], index: int, elements: list[FountainElement], roles: dict[int, str]
) -> int:
    """An action paragraph (also forced `!`, centred `> <` and lyrics `~`)."""
    start = index
    while index < len(lines) and lines[index].strip():
        index += 1
    body = [lines[i].strip() for i in range(start, index)]
    first = body[0]
    if first.startswith("~"):
        kind, role, text = "Lyrics", "lyric", "\n".join(b.lstrip("~") for b in body)
    elif first.startswith(">") and first.endswith("<"):
        text = "\n".join(b.strip("><").strip() for b in body)
        elements.append(
            FountainElement(
                "Action",
                text,
                _mark(roles, list(range(start + 1, index + 1)), "centered"),
                centered=True,
            )
        )
        return index
    else:
        kind, role = "Action", "action"
        text = "\n".join(b[1:] if b.startswith("!") and i == 0 else b for i, b in enumerate(body))
    elements.append(
        FountainElement(kind, text, _mark(roles, list(range(start + 1, index + 1)), role))
    )
    return index


def _plain(text: str) -> str:
    """Event text: notes and emphasis markers removed, one line."""
    return clean_text(EMPHASIS_RE.sub("", INLINE_NOTE_RE.sub("", text)))


def fountain_to_screenplay(document: FountainDocument) -> Screenplay:
    """Table 15 scenes from Fountain elements (sections, notes, page breaks are not events)."""
    scenes = [Scene(0)]
    speech: Event | None = None
    for element in document.elements:
        if element.type == "Scene Heading":
            location, time_of_day = split_heading(element.text)
            if not scenes[-1].events and scenes[-1].heading is None:
                scenes.pop()
            scenes.append(
                Scene(len(scenes), element.text, location, time_of_day, first_line=element.lines[0])
            )
            speech = None
        elif element.type == "Character":
            cue = parse_cue(re.sub(r"\s*\^$", "", element.text)) or (element.text, ())
            speech = Event(
                "dialogue", "", character=cue[0], extensions=cue[1], source_lines=element.lines
            )
            scenes[-1].events.append(speech)
        elif element.type in ("Dialogue", "Lyrics") and speech is not None:
            speech.text = clean_text(f"{speech.text} {_plain(element.text)}")
            speech.source_lines += element.lines
        elif element.type == "Parenthetical" and speech is not None:
            inner = element.text.strip()[1:-1].strip()
            speech.parenthetical = (
                f"{speech.parenthetical}; {inner}" if speech.parenthetical else inner
            )
        elif element.type in ("Action", "Lyrics") and _plain(element.text):
            scenes[-1].events.append(
                Event("direction", _plain(element.text), source_lines=element.lines)
            )
            speech = None
    scenes = [s for s in scenes if s.events or s.heading]
    for position, scene in enumerate(scenes):
        scene.index = position
    title_page = dict(document.title_page)
    return Screenplay(
        scenes, document.roles, "fountain", title=title_page.get("Title"), title_page=title_page
    )


def parse_fountain(text: str) -> Screenplay:
    """Parse Fountain text straight into Table 15 scenes."""
    return fountain_to_screenplay(parse_fountain_elements(text))
