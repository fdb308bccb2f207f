"""The offline `template` backend: Stages 1–3 and the gold self-check without a model.

It writes questions and claims from the context-set's belief entries with fixed templates per
type, verifies claims against the stored belief record (not against the screenplay text, as
the LLM verifier does), and self-checks the gold lexically. Its output is labelled `template`
wherever it is shown; it exercises the whole generation path and gives honest, plain questions
— never a stand-in for the paper's model-written ones.

Stage replies are the same pydantic models the LLM backend validates, so both share
`stages.py`.
"""

from __future__ import annotations

import re

from pipelines.qgen.drafts import Draft, StageResult
from pipelines.qgen.prompts import (
    ClaimVerdictReply,
    JudgeVerdict,
    OutlineClaim,
    RubricClaimReply,
    SelfCheckReply,
    Stage1Reply,
    Stage2Reply,
    Stage3Reply,
)
from pipelines.qgen.template_claims import claims_for
from pipelines.qgen.template_text import anchor_phrase, question_for
from pipelines.qgen.text import content_stems

BACKEND = "template"
MAX_CLAIM_WORDS = 25  # Table 24: claims of at most 25 words
SELF_CHECK_COVERAGE = 0.8


class TemplateBackend:
    """Fixed-template question writer, record verifier and lexical self-check."""

    name = BACKEND
    model = None

    def stage1(self, drafts: list[Draft]) -> list[StageResult]:
        return [self._stage1(d) for d in drafts]

    def _stage1(self, draft: Draft) -> StageResult:
        payload = draft.context_set.payload
        claims = claims_for(payload)
        if len(claims) < 2:
            reply = Stage1Reply(
                verdict="thin",
                thin_reason=(
                    f"the belief entries give {len(claims)} claim(s); the outline needs two"
                ),
            )
            return StageResult("thin", reply)
        question = f"{anchor_phrase(payload)}, {question_for(payload)}"
        outline = [OutlineClaim(claim=c.text, entries=c.entries) for c in claims[:4]]
        source_path = sorted({b for e in payload["belief_entries"] for b in e.get("basis") or []})
        reply = Stage1Reply(
            verdict="ok",
            question=question,
            outline=outline,
            source_path=source_path,
            distractor=claims[0].distractor,
        )
        return StageResult("ok", reply)

    def stage2(self, drafts: list[Draft]) -> list[StageResult]:
        return [self._stage2(d) for d in drafts]

    def _stage2(self, draft: Draft) -> StageResult:
        claims = claims_for(draft.context_set.payload)[:4]
        kept, dropped = [], []
        for index, claim in enumerate(claims, start=1):
            if len(claim.text.split()) > MAX_CLAIM_WORDS:
                dropped.append(index)
                continue
            kept.append(RubricClaimReply(text=claim.text, role=claim.role, outline_index=index))
        gold = " ".join(_sentence(c.text) for c in kept)
        why = f"claims {dropped} exceed {MAX_CLAIM_WORDS} words" if dropped else ""
        # model_construct: a reply with every claim dropped is legitimate here (it retires the
        # question), though an LLM reply without claims fails validation as malformed.
        return StageResult(
            "ok",
            Stage2Reply.model_construct(gold=gold, claims=kept, dropped=dropped, dropped_why=why),
        )

    def stage3(self, drafts: list[Draft]) -> list[StageResult]:
        return [self._stage3(d) for d in drafts]

    def _stage3(self, draft: Draft) -> StageResult:
        """Every template claim restates a stored entry, so it is supported when the entry is
        still in the record; a claim of a belief revised before the anchor is contradicted for
        the belief-state types (it no longer holds at the moment asked about)."""
        by_text = {c.text: c for c in claims_for(draft.context_set.payload)}
        verdicts = []
        for claim in draft.claims:
            source = by_text.get(claim.text)
            verdict = (
                "supported"
                if source and source.supported
                else ("contradicted" if source else "unsupported")
            )
            verdicts.append(
                ClaimVerdictReply(
                    claim_id=claim.ord,
                    verdict=verdict,
                    why=source.why if source else "not in the record",
                )
            )
        return StageResult("ok", Stage3Reply(verdicts=verdicts, answers_question="yes"))

    def self_check(self, drafts: list[Draft]) -> list[StageResult]:
        return [self._self_check(d) for d in drafts]

    def _self_check(self, draft: Draft) -> StageResult:
        """Lexical: a claim is asserted when ≥ 80% of its content words are in the gold."""
        gold = content_stems(draft.gold or "", exclude_proper_nouns=False)
        verdicts = []
        for claim in draft.claims:
            stems = content_stems(claim.text, exclude_proper_nouns=False)
            share = len(stems & gold) / len(stems) if stems else 1.0
            verdicts.append(
                JudgeVerdict(
                    claim=claim.ord,
                    label="asserted" if share >= SELF_CHECK_COVERAGE else "omitted",
                    rationale=f"{share:.0%} of its content words",
                )
            )
        return StageResult("ok", SelfCheckReply(verdicts=verdicts))


def _sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if text.endswith((".", "!", "?")) else text + "."
