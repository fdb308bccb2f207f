"""What a generation run carries per context-set through Stages 1–3 and the retirement rules
(LF-VideoQA App. F.2), shared by the template and the LLM backends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipelines.qgen.checks import CheckResult
from pipelines.qgen.context_sets import ContextSet

# App. F.2 retires a question "when too few core claims survive"; the Stage 2 prompt (Table 24)
# asks for at least two core claims and Stage 3 (Table 25) rewrites a question only with at
# least two surviving core claims, so two is the minimum we keep.
MIN_CORE_CLAIMS = 2


@dataclass
class StageResult:
    """One stage's outcome for one context-set.

    Attributes:
        status: ok | thin | malformed | failed.
        parsed: the validated reply (a pydantic model of `prompts`), None unless ok / thin.
        raw: the reply text as received (failed and malformed replies keep it).
        error: why it failed.
    """

    status: str
    parsed: Any = None
    raw: str | None = None
    error: str | None = None

    def payload(self) -> dict | None:
        if self.parsed is None:
            return {"error": self.error} if self.error else None
        return self.parsed.model_dump()


@dataclass
class Claim:
    """A rubric claim as it moves through Stages 2–3."""

    ord: int
    text: str
    role: str
    outline_index: int
    verdict: str | None = None
    evidence_scenes: list[int] = field(default_factory=list)


@dataclass
class Draft:
    """A context-set's question as it moves through the stages."""

    context_set: ContextSet
    question_id: str
    stages: dict[int, StageResult] = field(default_factory=dict)
    question: str | None = None
    original_question: str | None = None
    qtype: str | None = None
    distractor: str | None = None
    gold: str | None = None
    claims: list[Claim] = field(default_factory=list)
    checks: CheckResult | None = None
    status: str = "pending"  # pending | thin | failed | candidate | retired
    retire_rule: str | None = None
    retire_reason: str | None = None
    revised: bool = False
    revision_note: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "pending"

    def retire(self, rule: str, reason: str) -> None:
        self.status, self.retire_rule, self.retire_reason = "retired", rule, reason

    def core_claims(self) -> list[Claim]:
        return [claim for claim in self.claims if claim.role == "core"]
