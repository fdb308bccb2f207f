"""A question's input in a setting: the film's units within the budget, then chat messages.

    builder = InputBuilder(store, get_setting("subtitles"), SettingOptions(context_tokens=8192))
    given = builder.build(question_row)      # a question row of task_questions
    messages = openai_messages(given)        # what `storyscope answer` sends

The film's units are built once per film and cut once per film, so every question of a film
gets the same film input (the rule never looks at the question's evidence or rubric).
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from pathlib import Path

from data_access.queries import film_context
from data_access.store import Store
from pipelines.settings.budget import (
    CUT_RULE,
    MESSAGE_OVERHEAD_TOKENS,
    covered_ranges,
    estimate_tokens,
    thin_evenly,
)
from pipelines.settings.registry import Setting, SettingOptions
from pipelines.settings.sources import SettingUnavailable
from pipelines.settings.units import Unit

# StoryScope's answering instruction (the papers give the judge's and the generators' prompts,
# not the answerers'): answers are graded claim by claim against a rubric (§3.3), so the answer
# should state beliefs and their grounds rather than a single phrase.
ANSWER_INSTRUCTION = (
    "Answer the question about the film in a few sentences. Say what the character knows, "
    "believes or feels at that point, and why: what they saw, were told or inferred."
)
# Room reserved for the question itself, so that the film's cut does not depend on how long
# one question is (a longer question shrinks only its own film part).
QUESTION_ALLOWANCE_TOKENS = 256


@dataclass
class GivenInput:
    """What one question is given in a setting, and the record of it.

    Attributes:
        film_text: the film's kept units as one text (empty for question-only and video).
        frames: (time_s, jpeg_path) of the frames sent as image parts, in order.
        record: the `answer_inputs` fields (sizes, budget, kept units, ranges, frame times).
    """

    question_id: str
    setting: str
    header: str
    question: str
    instruction: str = ANSWER_INSTRUCTION
    units: list[Unit] = field(default_factory=list)
    record: dict = field(default_factory=dict)

    @property
    def frames(self) -> list[tuple[float, str]]:
        return [(u.frame_time_s, u.frame_path) for u in self.units if u.frame_path]

    @property
    def film_text(self) -> str:
        return "\n".join(u.text for u in self.units)


@dataclass
class _FilmPart:
    units: list[Unit]
    kept: list[int]
    budget: int
    header: str


class InputBuilder:
    """Builds questions' inputs in one setting, caching each film's cut units."""

    def __init__(self, store: Store, setting: Setting, options: SettingOptions) -> None:
        self.store, self.setting, self.options = store, setting, options
        self._films: dict[str, _FilmPart | SettingUnavailable] = {}

    def build(self, question: dict) -> GivenInput:
        """The input of one question (a row with question_id, film_id, text).

        Raises:
            SettingUnavailable: the store lacks what the setting needs for the film.
        """
        if self.setting.agent:  # its input is a conversation: pipelines.agents
            raise SettingUnavailable("the agent setting has no fixed input; it searches the film")
        started = time.process_time()
        part = self._film_part(question["film_id"])
        text = str(question["text"])
        extra = max(0, estimate_tokens(text) - QUESTION_ALLOWANCE_TOKENS)
        kept = part.kept if not extra else self._recut(part, part.budget - extra)
        units = [part.units[i] for i in kept]
        given = GivenInput(
            question["question_id"], self.setting.source, part.header, text, units=units
        )
        given.record = self._record(given, part, kept, started)
        return given

    def _film_part(self, film_id: str) -> _FilmPart:
        if film_id not in self._films:
            try:
                self._films[film_id] = self._cut_film(film_id)
            except SettingUnavailable as exc:
                self._films[film_id] = exc
        found = self._films[film_id]
        if isinstance(found, SettingUnavailable):
            raise found
        return found

    def _cut_film(self, film_id: str) -> _FilmPart:
        film = film_context.film_span(self.store, film_id)
        if film is None:
            raise SettingUnavailable(f"film {film_id!r} is not in the store")
        header = _film_header(film)
        if self.setting.units is None:
            return _FilmPart([], [], 0, header)
        units = self.setting.units(self.store, film, self.options)
        fixed = (
            estimate_tokens(ANSWER_INSTRUCTION + header)
            + 2 * MESSAGE_OVERHEAD_TOKENS
            + QUESTION_ALLOWANCE_TOKENS
        )
        budget = self.options.context_tokens - self.options.answer_tokens - fixed
        part = _FilmPart(units, [], budget, header)
        part.kept = self._recut(part, budget)
        return part

    def _recut(self, part: _FilmPart, budget: int) -> list[int]:
        costs = [self._cost(u) for u in part.units]
        return thin_evenly(costs, [u.structural for u in part.units], budget)

    def _cost(self, unit: Unit) -> int:
        image = self.options.image_tokens if unit.frame_path else 0
        return estimate_tokens(unit.text) + 1 + image  # +1: the line break between units

    def _record(self, given: GivenInput, part: _FilmPart, kept: list[int], started: float) -> dict:
        frames = given.frames
        text = given.film_text
        est = (
            estimate_tokens(given.instruction + given.header + text + given.question)
            + len(frames) * self.options.image_tokens
            + 2 * MESSAGE_OVERHEAD_TOKENS
        )
        cut = len(kept) < len(part.units)
        return {
            "question_id": given.question_id,
            "source": self.setting.source,
            "est_tokens": est,
            "budget_tokens": part.budget if self.setting.units is not None else None,
            "units_total": len(part.units),
            "units_kept": len(kept),
            "text_chars": len(text),
            "frame_times": [t for t, _ in frames] or None,
            "covered": covered_ranges([(u.start_s, u.end_s) for u in part.units], kept),
            "cut_rule": CUT_RULE if cut else None,
            "build_ms": (time.process_time() - started) * 1000.0,
        }


def _film_header(film: dict) -> str:
    title = film.get("title") or film["film_id"]
    year = film.get("year")
    has_year = year is not None and year == year
    return f"Film: {title} ({int(year)})" if has_year else f"Film: {title}"


def user_text(given: GivenInput) -> str:
    """The user message's text of a text-only setting: header, the film, the question."""
    parts = [given.header]
    if given.units:
        parts.append(given.film_text.strip("\n"))
    parts.append(f"Question: {given.question}")
    return "\n\n".join(parts)


def content_parts(given: GivenInput) -> list[dict]:
    """The user message of a video setting as parts in order: the header, then per frame its
    time stamp (and subtitles) as text and the frame as an image, then the question.

    Parts are `{"type": "text", "text"}` or `{"type": "image", "path", "time_s"}`; each
    harness renders them its own way (`openai_messages`, the exported inspect task).
    """
    parts: list[dict] = [{"type": "text", "text": given.header}]
    for unit in given.units:
        parts.append({"type": "text", "text": unit.text})
        if unit.frame_path:
            parts.append({"type": "image", "path": unit.frame_path, "time_s": unit.frame_time_s})
    parts.append({"type": "text", "text": f"Question: {given.question}"})
    return parts


def openai_messages(given: GivenInput) -> list[dict]:
    """Chat messages for an OpenAI-compatible endpoint: the instruction as system message and,
    for the video settings, each frame as an image part after its time stamp (and subtitles)."""
    system = {"role": "system", "content": given.instruction}
    if not given.frames:
        return [system, {"role": "user", "content": user_text(given)}]
    content = [
        {"type": "image_url", "image_url": {"url": jpeg_data_url(part["path"])}}
        if part["type"] == "image"
        else part
        for part in content_parts(given)
    ]
    return [system, {"role": "user", "content": content}]


def jpeg_data_url(path: str | Path) -> str:
    """A JPEG file as a `data:` URL (the image part of an OpenAI chat message)."""
    return "data:image/jpeg;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")
