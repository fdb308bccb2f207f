"""Stage 1–3 prompts as versioned templates (LF-VideoQA App. J, Tables 22–25) and the reply
schemas the gateway validates against.

Templates live in `pipelines/prompts/qgen_stage{1,2,3}_v1.txt`; `{name}` marks an input the
pipeline inserts (App. J's convention), filled by plain replacement so the JSON examples in the
templates need no escaping. Changing a template means a new file and a new `PROMPT_VERSION`:
the version is recorded on the run and is part of every cache key (through the messages).
The gold self-check reuses the judge's template (`judge_claims_v1.txt`, after Table 26).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

PROMPT_VERSION = "qgen-v1"
PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
TEMPLATES = {
    1: "qgen_stage1_v1.txt",
    2: "qgen_stage2_v1.txt",
    3: "qgen_stage3_v1.txt",
    4: "judge_claims_v1.txt",
}

# Table 22, one line per type. The seed text carries the table's caption only, so these lines
# are our wording of the definitions the paper prints in Table 25's `revised_type` list: each
# names the epistemic structure the question must require and stops.
TYPE_SPECS = {
    "Q1": "Cohort knowledge split: at one moment, several people each take something different "
    "to be the case; the question must require what each of them holds.",
    "Q2": "Realization moment: someone's understanding changes; the question must require the "
    "prior view and what replaces it.",
    "Q3": "In-scene false belief: what someone takes to be the case right before acting, when "
    "the film has shown otherwise.",
    "Q4": "Source attribution: how a fact reaches someone – witnessed, told (c_told_d) or "
    "inferred – and from what.",
    "Q5": "First-order theory of mind: what X takes Y to believe.",
    "Q6": "Higher-order theory of mind: what X takes Y to believe about Z.",
    "Q7": "Deception detection: what X makes of what X is told (c_told_d, believed_by_c).",
    "Q8": "Ordered discoveries: the things someone learns, in the order they learn them.",
    "N1": "Epistemic arc: how someone's knowledge develops across the whole film.",
    "N2": "Trust evolution: how X's model of Y changes across the film.",
    "N3": "Causal chain: the sequence of perceptions and inferences that leads to a belief.",
}


@lru_cache(maxsize=8)
def template(stage: int) -> str:
    """The template text of a stage (1–3, 4 = gold self-check by the judge)."""
    return (PROMPTS_DIR / TEMPLATES[stage]).read_text(encoding="utf-8")


def render(stage: int, **values: object) -> list[dict]:
    """Chat messages for a stage: the instructions as system, the filled template as user."""
    text = template(stage)
    for name, value in values.items():
        text = text.replace(
            "{" + name + "}",
            value
            if isinstance(value, str)
            else json.dumps(value, ensure_ascii=False, indent=1, default=str),
        )
    instructions, _, rest = text.partition("\n")
    return [
        {"role": "system", "content": instructions},
        {"role": "user", "content": rest.lstrip("\n")},
    ]


# -- reply schemas (validated by the gateway; a reply that fails them is "malformed") -----------
class OutlineClaim(BaseModel):
    claim: str = Field(min_length=1)
    entries: list[str] = Field(default_factory=list)


class Stage1Reply(BaseModel):
    """Table 23 output: a question with a 2–4 claim outline and a distractor, or a refusal."""

    verdict: Literal["ok", "thin"]
    thin_reason: str = ""
    question: str = ""
    outline: list[OutlineClaim] = Field(default_factory=list)
    source_path: list[str] = Field(default_factory=list)
    distractor: str = ""


def validate_stage1(reply: Stage1Reply) -> Stage1Reply:
    """Semantic checks the schema cannot express; a ValueError makes the reply malformed."""
    if reply.verdict == "ok":
        if not reply.question.strip():
            raise ValueError("malformed reply: verdict ok but no question")
        if not 2 <= len(reply.outline) <= 4:
            raise ValueError(f"malformed reply: outline has {len(reply.outline)} claims, not 2-4")
        if not reply.distractor.strip():
            raise ValueError("malformed reply: verdict ok but no distractor")
    elif not reply.thin_reason.strip():
        raise ValueError("malformed reply: verdict thin without thin_reason")
    return reply


class RubricClaimReply(BaseModel):
    text: str = Field(min_length=1)
    role: Literal["core", "context"]
    outline_index: int = Field(ge=1)


class Stage2Reply(BaseModel):
    """Table 24 output: gold answer, atomic claims with roles, dropped outline claims."""

    gold: str = Field(min_length=1)
    claims: list[RubricClaimReply] = Field(min_length=1)
    dropped: list[int] = Field(default_factory=list)
    dropped_why: str = ""


class ClaimVerdictReply(BaseModel):
    claim_id: int = Field(ge=1)
    verdict: Literal["supported", "unsupported", "contradicted"]
    rewrite: str = ""
    why: str = ""


class Stage3Reply(BaseModel):
    """Table 25 output: a verdict per claim and the revision fields."""

    verdicts: list[ClaimVerdictReply] = Field(min_length=1)
    answers_question: Literal["yes", "no"]
    revised_gold: str = ""
    revised_question: str = ""
    revised_type: str = ""
    revision_note: str = ""


class JudgeVerdict(BaseModel):
    claim: int = Field(ge=1)
    label: Literal["asserted", "contradicted", "omitted"]
    rationale: str = ""


class SelfCheckReply(BaseModel):
    """The judge's grading of the gold answer against its own rubric (App. F.2, last step)."""

    verdicts: list[JudgeVerdict] = Field(min_length=1)
