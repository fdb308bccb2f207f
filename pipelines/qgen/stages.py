"""Applying stage replies to drafts, and the retirement rules (LF-VideoQA App. F.2).

Both backends produce the same reply models (`prompts.Stage1Reply`, ...), so everything after
the model call — automatic checks, claim survival, revision, retirement, the gold self-check —
is one code path, tested once.

Retirement rules, each recorded with its reason:
- `checks`: the Stage 1 question fails an automatic check;
- `contradicted_core`: the verifier labels a core claim contradicted;
- `too_few_core`: fewer than `MIN_CORE_CLAIMS` core claims survive verification;
- `does_not_answer`: the survivors no longer answer the question and no rewrite was given;
- `rewrite_failed_checks`: the verifier's rewritten question fails an automatic check;
- `gold_omits_core`: the judge, grading the gold against its own rubric, finds a core claim
  not asserted.
"""

from __future__ import annotations

from pipelines.qgen.check_run import context_from_payload
from pipelines.qgen.checks import check_question
from pipelines.qgen.context_sets import ContextSet
from pipelines.qgen.drafts import MIN_CORE_CLAIMS, Claim, Draft, StageResult
from pipelines.qgen.entries import ALL_TYPES


def _failure_text(draft: Draft) -> str:
    return "; ".join(f"{f.check}: {f.reason}" for f in draft.checks.failures)


def check_draft(draft: Draft, question: str, gold: str | None = None):
    """Run the automatic checks on a draft's question with its context-set's name budget."""
    context = context_from_payload(
        draft.context_set.payload,
        gold,
        claims=[c.text for c in draft.claims] if gold else (),
        direction_lines=draft.context_set.direction_lines,
    )
    return check_question(question, context)


def apply_stage1(draft: Draft, result: StageResult) -> None:
    """Record the question (or the refusal) and retire it when a check fails."""
    draft.stages[1] = result
    if result.status != "ok":
        draft.status = "thin" if result.status == "thin" else "failed"
        return
    reply = result.parsed
    draft.question = draft.original_question = reply.question.strip()
    draft.qtype = draft.context_set.qtype
    draft.distractor = reply.distractor
    draft.checks = check_draft(draft, draft.question)
    if not draft.checks.passed:
        draft.retire("checks", _failure_text(draft))


def apply_stage2(draft: Draft, result: StageResult) -> None:
    """Record the gold answer and the rubric claims."""
    draft.stages[2] = result
    if result.status != "ok":
        draft.status = "failed"
        return
    reply = result.parsed
    draft.gold = reply.gold.strip()
    draft.claims = [
        Claim(ord=i + 1, text=c.text.strip(), role=c.role, outline_index=c.outline_index)
        for i, c in enumerate(reply.claims)
    ]
    draft.checks = check_draft(draft, draft.question, draft.gold)  # now with the leak score
    if not draft.checks.passed:
        draft.retire("checks", _failure_text(draft))
    elif len(draft.core_claims()) < MIN_CORE_CLAIMS:
        # Verification can only remove claims, so this question cannot keep enough: retire it
        # now and save the verifier call.
        draft.retire(
            "too_few_core",
            f"Stage 2 wrote {len(draft.core_claims())} core claim(s) "
            f"(minimum {MIN_CORE_CLAIMS}); dropped: {reply.dropped_why or 'none'}",
        )


def apply_stage3(draft: Draft, result: StageResult) -> None:
    """Apply the verifier's verdicts, rewrites and revisions; retire by the rules above."""
    draft.stages[3] = result
    if result.status != "ok":
        draft.status = "failed"
        return
    reply = result.parsed
    verdicts = {v.claim_id: v for v in reply.verdicts}
    for claim in draft.claims:
        verdict = verdicts.get(claim.ord)
        claim.verdict = verdict.verdict if verdict else "unsupported"
        if verdict and verdict.rewrite.strip():
            claim.text, draft.revised = verdict.rewrite.strip(), True
    contradicted = [c for c in draft.core_claims() if c.verdict == "contradicted"]
    if contradicted:
        draft.retire(
            "contradicted_core",
            f"core claim {contradicted[0].ord} contradicted: {contradicted[0].text}",
        )
        return
    if any(c.verdict != "supported" for c in draft.claims):
        draft.revised = True
    draft.claims = [c for c in draft.claims if c.verdict == "supported"]
    if reply.revised_gold.strip():
        draft.gold = reply.revised_gold.strip()
    if len(draft.core_claims()) < MIN_CORE_CLAIMS:
        draft.retire(
            "too_few_core",
            f"{len(draft.core_claims())} core claim(s) survive "
            f"verification (minimum {MIN_CORE_CLAIMS})",
        )
        return
    _apply_revision(draft, reply)


def _apply_revision(draft: Draft, reply) -> None:
    if reply.answers_question == "yes":
        draft.revision_note = reply.revision_note or None
        return
    if not reply.revised_question.strip():
        draft.retire(
            "does_not_answer",
            "surviving claims no longer answer the question and the verifier gave no rewrite",
        )
        return
    draft.question, draft.revised = reply.revised_question.strip(), True
    if reply.revised_type in ALL_TYPES:
        draft.qtype = reply.revised_type
    draft.revision_note = reply.revision_note or None
    draft.checks = check_draft(draft, draft.question, draft.gold)
    if not draft.checks.passed:
        draft.retire("rewrite_failed_checks", _failure_text(draft))


def apply_self_check(draft: Draft, result: StageResult) -> None:
    """Retire a question whose gold answer the judge finds omitting a core claim."""
    draft.stages[4] = result
    if result.status != "ok":
        draft.status = "failed"
        return
    labels = {v.claim: v.label for v in result.parsed.verdicts}
    missing = [c for c in draft.core_claims() if labels.get(c.ord) != "asserted"]
    if missing:
        draft.retire(
            "gold_omits_core",
            f"the gold answer does not assert core claim {missing[0].ord}: {missing[0].text}",
        )
        return
    draft.status = "candidate"


def new_draft(context_set: ContextSet, run_id: str) -> Draft:
    """A draft for a context-set, with a question id unique to the run."""
    return Draft(
        context_set=context_set, question_id=f"{context_set.context_set_id.split('/')[-1]}@{run_id}"
    )
