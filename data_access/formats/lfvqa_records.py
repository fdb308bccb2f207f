"""Interchange format v1: one JSONL (or Parquet) file per table, plus `manifest.json`.

A dataset directory holds `manifest.json` and any subset of the table files below; a file may be
`<name>.jsonl` or `<name>.parquet`. Records reference each other by id; a reference may point to
a record in the same import or one already in the store. Times are seconds from the start of
the film (floats). Field constraints here are enforced on import; the field descriptions are
what `docs/FORMAT.md` shows.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from data_access.formats.question_types import ALL_TYPES

FORMAT_NAME = "storyscope-lfvqa"
FORMAT_VERSION = 1

QuestionType = Literal[ALL_TYPES]  # Literal over the tuple: Q1..Q8, N1..N3
Verdict = Literal["asserted", "contradicted", "omitted", "partial", "unverifiable"]


class Record(BaseModel):
    """Base of every table record: unknown fields are errors, so typos do not vanish."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class Manifest(Record):
    # Strict: `"reported_by_paper": "yes"` or `1` is an error, not a guess.
    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["storyscope-lfvqa"] = Field(description="Always `storyscope-lfvqa`.")
    version: Literal[1] = Field(description="Format version; this document describes 1.")
    dataset_id: str = Field(
        min_length=1, description="Stable id of the dataset, e.g. `lfvqa_paper`."
    )
    name: str = Field(min_length=1, description="Human-readable dataset name.")
    kind: Literal["lfvqa", "storyvideoqa", "tom", "judge_labels", "synthetic"] = "lfvqa"
    source: str | None = Field(None, description="Where the data comes from (paper, URL, tool).")
    licence: str | None = None
    reported_by_paper: bool = Field(
        False, description="True when every figure is transcribed from a paper, not computed here."
    )

    @field_validator("version", mode="before")
    @classmethod
    def _version_is_an_integer(cls, value):
        # Literal[1] alone lets `true` and `1.0` through (True == 1.0 == 1 in Python): the
        # version is a JSON integer, nothing that merely compares equal to one.
        if type(value) is not int:
            raise ValueError(f"must be the JSON integer {FORMAT_VERSION}, not {value!r}")
        return value


class Film(Record):
    film_id: str = Field(min_length=1, description="Unique id, e.g. `the-holdovers-2023`.")
    title: str = Field(min_length=1)
    year: int | None = Field(None, ge=1880, le=2100)
    kind: Literal["film", "episode", "story"] = "film"
    series: str | None = None
    season: int | None = Field(None, ge=0)
    episode: int | None = Field(None, ge=0)
    runtime_s: float | None = Field(None, gt=0, description="Runtime in seconds.")
    source: str | None = None
    video_path: str | None = None
    fps: float | None = Field(None, gt=0)


class Scene(Record):
    film_id: str
    scene_index: int = Field(ge=0, description="0-based order of the scene in the film.")
    heading: str | None = None
    location: str | None = None
    time_of_day: str | None = None
    start_s: float | None = Field(None, ge=0)
    end_s: float | None = Field(None, ge=0, description="Must be ≥ start_s.")
    time_source: Literal["matched", "interpolated", "reported", "none"] = "none"
    summary: str | None = None


class ScriptLine(Record):
    film_id: str
    line_index: int = Field(ge=0)
    scene_index: int | None = Field(None, ge=0)
    kind: Literal["direction", "dialogue"]
    character: str | None = Field(None, description="Speaker, for dialogue.")
    parenthetical: str | None = None
    text: str
    start_s: float | None = Field(None, ge=0)
    end_s: float | None = Field(None, ge=0)


class Character(Record):
    film_id: str
    character_id: str = Field(min_length=1)
    canonical_name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    first_spoken_s: float | None = Field(
        None, ge=0, description="First time the name is spoken aloud."
    )


class Subtitle(Record):
    film_id: str
    cue_index: int = Field(ge=0)
    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0, description="Must be ≥ start_s.")
    text: str
    matched_line: int | None = Field(None, ge=0, description="Script line the cue belongs to.")


class SceneEvent(Record):
    film_id: str
    event_id: str = Field(min_length=1, description="e.g. `e_017_3` (scene 17, event 3).")
    scene_index: int = Field(ge=0)
    ord: int = Field(ge=0)
    description: str = Field(min_length=1)
    participants: list[str] = Field(default_factory=list)
    witnesses: list[str] = Field(default_factory=list)


class Presence(Record):
    film_id: str
    scene_index: int = Field(ge=0)
    character: str = Field(min_length=1)
    status: Literal["on_screen", "offscreen_aware", "offscreen_unaware", "absent_unmentioned"]
    witnessed_events: list[str] = Field(default_factory=list)


class Belief(Record):
    film_id: str
    belief_id: str = Field(min_length=1, description="Stable tag, e.g. `B3` or `F1`.")
    holder: str = Field(min_length=1)
    scene_index: int = Field(ge=0, description="Scene where the belief forms.")
    kind: Literal["witnessed", "told", "inferred", "false", "revised"]
    content: str = Field(min_length=1)
    source_character: str | None = None
    believed: bool | None = None
    basis: list[str] = Field(default_factory=list)
    confidence: str | None = None
    is_false: bool = False
    revises: str | None = Field(None, description="belief_id this belief revises.")
    revised_at_scene: int | None = Field(None, ge=0)
    trigger: str | None = None


class MetaBelief(Record):
    film_id: str
    meta_id: str = Field(min_length=1)
    holder: str = Field(min_length=1)
    about: str = Field(min_length=1)
    scene_index: int = Field(ge=0)
    claim: str = Field(min_length=1)
    type: Literal["first_order_about_d", "about_self", "about_third_party"]
    change: Literal["new", "changed"] | None = None
    source: str | None = None
    basis: list[str] = Field(default_factory=list)
    confidence: str | None = None
    order_depth: int = Field(2, ge=2, le=8)


class Question(Record):
    question_id: str = Field(min_length=1)
    film_id: str
    qtype: QuestionType
    center: str = Field(min_length=1, description="Center character (a group for Q1).")
    anchor_scene: int | None = Field(None, ge=0)
    anchor_time_s: float | None = Field(None, ge=0)
    anchor_location: str | None = None
    status: Literal["released", "candidate", "retired"] = "released"
    text: str = Field(min_length=1)
    gold: str | None = None
    source: Literal["paper", "generated", "synthetic", "imported"] = "imported"


class RubricClaim(Record):
    claim_id: str = Field(min_length=1)
    question_id: str
    ord: int = Field(
        ge=1, description="1-based claim number as printed; unique within the question."
    )
    role: Literal["core", "context"]
    text: str = Field(min_length=1)
    evidence_scenes: list[int] = Field(default_factory=list)


class QuestionEvidence(Record):
    question_id: str
    ord: int = Field(ge=0)
    time_s: float | None = Field(None, ge=0)
    location: str | None = None
    scene_index: int | None = Field(None, ge=0)
    claim_ords: list[int] = Field(
        default_factory=list,
        description="`ord`s of this question's rubric claims the evidence supports; each once.",
    )
    is_anchor: bool = False


class Setting(Record):
    setting_id: str = Field(min_length=1)
    source: Literal[
        "screenplay",
        "subtitles",
        "captions",
        "captions+subtitles",
        "video",
        "video+subtitles",
        "agent",
        "reference",
    ]
    answerer: str | None = None
    captioner: str | None = None
    tier: str | None = None
    label: str = Field(min_length=1)


class Answer(Record):
    answer_id: str = Field(min_length=1)
    question_id: str
    setting_id: str
    text: str


class Judge(Record):
    judge_id: str = Field(min_length=1)
    kind: Literal["llm", "lexical", "human", "predictor"]
    backend: str | None = None
    model: str | None = None
    prompt_version: str | None = None


class ClaimVerdict(Record):
    judge_id: str
    answer_id: str
    claim_id: str
    verdict: Verdict
    rationale: str | None = None


class ReportedResult(Record):
    table_ref: str = Field(min_length=1, description="e.g. `LF-VideoQA Table 4`.")
    setting_label: str | None = None
    setting_id: str | None = None
    qtype: QuestionType | None = None
    metric: str = Field(min_length=1)
    value: float
    ci_halfwidth: float | None = Field(None, ge=0)
    note: str | None = None
