"""Rows a generation run writes, built from its drafts (one function per table)."""

from __future__ import annotations

from pipelines.qgen.check_run import context_from_payload
from pipelines.qgen.drafts import Draft
from pipelines.qgen.film_view import FilmView
from pipelines.qgen.name_mentions import names_mentioned

_STAGE_RAW_LIMIT = 20_000  # a runaway reply is kept, but not megabytes of it


def name_violations(draft: Draft) -> list[str]:
    """Never-spoken names the draft's question uses (App. F.1 name budget)."""
    context = context_from_payload(draft.context_set.payload, None)
    return names_mentioned(draft.question or "", context.forbidden_names, context.allowed_names)


def stage_rows(run_id: str, drafts: list[Draft], backend: str) -> list[dict]:
    """One `qgen_stage_outputs` row per stage call."""
    return [
        {
            "run_id": run_id,
            "context_set_id": d.context_set.context_set_id,
            "question_id": d.question_id,
            "stage": stage,
            "status": result.status,
            "backend": backend,
            "payload": result.payload(),
            "raw_reply": (result.raw or None) and result.raw[:_STAGE_RAW_LIMIT],
        }
        for d in drafts
        for stage, result in sorted(d.stages.items())
    ]


def question_rows(run_id: str, view: FilmView, drafts: list[Draft]) -> list[dict]:
    """Questions that got written (thin refusals and failed calls have none)."""
    rows = []
    for d in drafts:
        if not d.question:
            continue
        anchor = d.context_set.payload["anchor"]
        rows.append(
            {
                "question_id": d.question_id,
                "film_id": view.film_id,
                "qtype": d.qtype or d.context_set.qtype,
                "center": d.context_set.center,
                "anchor_scene": d.context_set.anchor_scene,
                "anchor_time_s": anchor.get("time_s"),
                "anchor_location": anchor.get("location"),
                "status": "candidate" if d.status == "candidate" else "retired",
                "text": d.question,
                "gold": d.gold,
                "source": "generated",
                "context_set_id": d.context_set.context_set_id,
                "run_id": run_id,
            }
        )
    return rows


def claim_rows(run_id: str, drafts: list[Draft]) -> list[dict]:
    """Rubric claims of written questions (the surviving ones after Stage 3)."""
    return [
        {
            "claim_id": f"{d.question_id}#{c.ord}",
            "question_id": d.question_id,
            "ord": c.ord,
            "role": c.role,
            "text": c.text,
            "evidence_scenes": sorted({s["scene"] for s in d.context_set.payload["scenes"]}),
            "run_id": run_id,
        }
        for d in drafts
        if d.question
        for c in d.claims
    ]


def evidence_rows(run_id: str, drafts: list[Draft]) -> list[dict]:
    """Evidence points of written questions: one per scene the context-set carried (its time,
    location and scene), in film order, the anchor flagged. The writer cites no scene per claim,
    so every claim rests on every carried scene (as `claim_rows` records)."""
    rows = []
    for d in drafts:
        if not d.question:
            continue
        cards = sorted(d.context_set.payload["scenes"], key=lambda card: card["scene"])
        claim_ords = sorted(c.ord for c in d.claims)
        rows += [
            {
                "question_id": d.question_id,
                "ord": ord_,
                "time_s": card.get("time_s"),
                "location": card.get("location"),
                "scene_index": card["scene"],
                "claim_ords": claim_ords,
                "is_anchor": card["scene"] == d.context_set.anchor_scene,
                "run_id": run_id,
            }
            for ord_, card in enumerate(cards, start=1)
        ]
    return rows


def outcome_rows(run_id: str, drafts: list[Draft]) -> list[dict]:
    """Final status of every sampled context-set's question, with the rule that retired it."""
    return [
        {
            "run_id": run_id,
            "question_id": d.question_id,
            "context_set_id": d.context_set.context_set_id,
            "final_status": d.status if d.status != "pending" else "failed",
            "retire_rule": d.retire_rule,
            "retire_reason": d.retire_reason,
            "distractor": d.distractor,
            "revised": d.revised,
            "revision_note": d.revision_note,
        }
        for d in drafts
    ]
