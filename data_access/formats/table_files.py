"""The table files of the interchange format: each file's record model, store table, keys and
references, in import order (references point backwards).

The importers, the export and docs/FORMAT.md all walk `TABLE_FILES`; the record models live in
lfvqa.py (films, beliefs, questions, judging) and mcq_records.py (StoryVideoQA MCQs).
"""

from __future__ import annotations

from dataclasses import dataclass

from data_access.formats.lfvqa_records import (
    Answer,
    Belief,
    Character,
    ClaimVerdict,
    Film,
    Judge,
    MetaBelief,
    Presence,
    Question,
    QuestionEvidence,
    Record,
    ReportedResult,
    RubricClaim,
    Scene,
    SceneEvent,
    ScriptLine,
    Setting,
    Subtitle,
)
from data_access.formats.mcq_records import McqPrediction, McqQuestion


@dataclass(frozen=True)
class TableFile:
    """One table file of the format: its record model, store table and keys."""

    name: str
    model: type[Record]
    table: str
    key: tuple[str, ...]
    references: tuple[tuple[str, str, str], ...] = ()  # (field, table file, field there)
    # Further keys unique within the file and the store (`(question_id, ord)` of claims).
    unique: tuple[tuple[str, ...], ...] = ()
    # List fields whose items reference records of the same owner:
    # (list field, owner field, table file, owner field there, field there).
    list_references: tuple[tuple[str, str, str, str, str], ...] = ()


TABLE_FILES: tuple[TableFile, ...] = (
    TableFile("films", Film, "films", ("film_id",)),
    TableFile(
        "scenes", Scene, "scenes", ("film_id", "scene_index"), (("film_id", "films", "film_id"),)
    ),
    TableFile(
        "script_lines",
        ScriptLine,
        "script_lines",
        ("film_id", "line_index"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "characters",
        Character,
        "characters",
        ("film_id", "character_id"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "subtitles",
        Subtitle,
        "subtitles",
        ("film_id", "cue_index"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "scene_events",
        SceneEvent,
        "scene_events",
        ("film_id", "event_id"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "presence",
        Presence,
        "presence",
        ("film_id", "scene_index", "character"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "beliefs",
        Belief,
        "beliefs",
        ("film_id", "belief_id", "holder"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "meta_beliefs",
        MetaBelief,
        "meta_beliefs",
        ("film_id", "meta_id"),
        (("film_id", "films", "film_id"),),
    ),
    TableFile(
        "questions", Question, "questions", ("question_id",), (("film_id", "films", "film_id"),)
    ),
    TableFile(
        "rubric_claims",
        RubricClaim,
        "rubric_claims",
        ("claim_id",),
        (("question_id", "questions", "question_id"),),
        # A question's claims are numbered once each: evidence names them by `ord`.
        unique=(("question_id", "ord"),),
    ),
    TableFile(
        "question_evidence",
        QuestionEvidence,
        "question_evidence",
        ("question_id", "ord"),
        (("question_id", "questions", "question_id"),),
        list_references=(("claim_ords", "question_id", "rubric_claims", "question_id", "ord"),),
    ),
    TableFile("settings", Setting, "settings", ("setting_id",)),
    TableFile(
        "answers",
        Answer,
        "answers",
        ("answer_id",),
        (("question_id", "questions", "question_id"), ("setting_id", "settings", "setting_id")),
    ),
    TableFile("judges", Judge, "judges", ("judge_id",)),
    TableFile(
        "claim_verdicts",
        ClaimVerdict,
        "claim_verdicts",
        ("judge_id", "answer_id", "claim_id"),
        (
            ("judge_id", "judges", "judge_id"),
            ("answer_id", "answers", "answer_id"),
            ("claim_id", "rubric_claims", "claim_id"),
        ),
    ),
    TableFile("reported_results", ReportedResult, "reported_results", ()),
    TableFile("mcq_questions", McqQuestion, "mcq_questions", ("mcq_id",)),
    TableFile(
        "mcq_predictions",
        McqPrediction,
        "mcq_predictions",
        ("mcq_id", "method"),
        (("mcq_id", "mcq_questions", "mcq_id"),),
    ),
)
