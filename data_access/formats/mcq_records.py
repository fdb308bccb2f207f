"""The StoryVideoQA multiple-choice tables of the interchange format: MCQs and predictions.

An MCQ has rules over several of its fields (the option names one of the choices, `gt` is that
choice's text). Each is a `RowRule`, stated once in two forms: a Python predicate for records the
model validates (the StoryVideoQA release importer) and a SQL condition for table files checked
in DuckDB (importers/checks.py reads a model's `ROW_RULES`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from data_access.formats.lfvqa_records import Record


@dataclass(frozen=True)
class RowRule:
    """A rule over several fields of one record, stated once for both import paths: `holds`
    for records validated in Python (the StoryVideoQA release, via the model), `violated_sql`
    for table files checked in DuckDB (importers/checks.py). A test runs every rule's cases
    through both forms."""

    field: str
    message: str
    holds: Callable[[Any], bool]
    violated_sql: str


class RuleBroken(ValueError):
    """A `RowRule` does not hold for a record (carries the rule, so errors name its field)."""

    def __init__(self, rule: RowRule):
        super().__init__(f"{rule.field}: {rule.message}")
        self.rule = rule


MCQ_OPTIONS = "ABCDE"


def _option_number(option: str) -> int:
    return MCQ_OPTIONS.index(option)


# StoryVideoQA §4 (Table 6): `option` is the letter of the correct choice and `GT` its text.
MCQ_RULES: tuple[RowRule, ...] = (
    RowRule(
        "option",
        "points past the choices",
        lambda q: _option_number(q.option) < len(q.choices),
        f'position("option" IN \'{MCQ_OPTIONS}\') > len("choices")',
    ),
    RowRule(
        "gt",
        "must be the text of the choice that option names",
        lambda q: (
            _option_number(q.option) >= len(q.choices)
            or q.choices[_option_number(q.option)] == q.gt
        ),
        f'position("option" IN \'{MCQ_OPTIONS}\') <= len("choices")'
        f' AND "choices"[position("option" IN \'{MCQ_OPTIONS}\')] IS DISTINCT FROM "gt"',
    ),
)


class McqQuestion(Record):
    ROW_RULES: ClassVar[tuple[RowRule, ...]] = MCQ_RULES

    mcq_id: str = Field(min_length=1)
    set_name: str = "golden"
    source: str = Field(min_length=1, description="Friends | BigBang | GOT | Movie | ...")
    vid: str = Field(min_length=1)
    qid: int | None = Field(None, strict=True)
    question: str = Field(min_length=1)
    choices: list[str] = Field(min_length=2)
    gt: str
    option: Literal["A", "B", "C", "D", "E"]
    question_type: Literal["P", "I"] | None = None
    story_element: Literal["C", "A", "L", "CA", "CL", "AL", "CAL"] | None = None
    characters: list[str] = Field(default_factory=list)
    locations: list[str] = Field(default_factory=list)
    times: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _rules_hold(self):
        for rule in self.ROW_RULES:
            if not rule.holds(self):
                raise RuleBroken(rule)
        return self


class McqPrediction(Record):
    mcq_id: str
    method: str = Field(min_length=1)
    predicted_option: Literal["A", "B", "C", "D", "E"] | None = None
