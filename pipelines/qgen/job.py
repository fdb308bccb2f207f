"""The `generate` job kind and its dry run ("generate on this slice").

`plan_generation` is the dry run: the slice's context-sets, their discards (App. F.1), the
items a run would sample, and — for the `openai` backend — how many Stage 1 requests the
store's LLM cache already answers, with estimated tokens and cost. It writes nothing.

`run_generate_job` is the job function (`start_job(store, "generate", options.params())`):
it runs `generate` with hooks that attach the run to the job, write progress after each stage
and stop between stages when asked. Progress counts steps: Stages 1–3, the gold self-check,
then writing the run (checks, analytics, rows) — `GENERATE_STEPS` in all.

Generation writes its rows in one transaction at the end (see `generate`), so a killed or
stopped job leaves no half-written questions; resuming it starts a new run whose LLM calls
replay from the cache instead of being paid again.
"""

from __future__ import annotations

from typing import Any

from data_access.store import Store
from data_access.tables.llm_log import lookup_cache
from data_access.tables.runs import end_run
from pipelines.qgen.context_sets import context_pack
from pipelines.qgen.generate import GenerateOptions, GenerationReport
from pipelines.qgen.llm_backend import example_triples
from pipelines.qgen.prompts import TYPE_SPECS, Stage1Reply, render

GENERATE_STEPS = 5  # Stage 1, Stage 2, Stage 3, gold self-check (App. F), writing the run
STEP_NAMES = {
    0: "starting",
    1: "Stage 1 (question + outline)",
    2: "Stage 2 (gold + rubric)",
    3: "Stage 3 (verification)",
    4: "gold self-check",
    5: "run written",
}
# The estimate's assumptions (only Stage 1's prompt can be rendered before any reply exists):
# Stages 2 and 3 re-send the context pack or its scene texts, so each is counted at Stage 1's
# prompt size; the self-check prompt (question, claims, gold) is small. Completion tokens per
# stage are rough sizes of the Table 22–25 reply schemas.
_SELF_CHECK_PROMPT_TOKENS = 300
_COMPLETION_TOKENS = (350, 350, 250, 120)


class GenerationStopped(Exception):
    """Raised between stages when the job was asked to stop."""


def _stage1_messages(report: GenerationReport) -> list[list[dict]]:
    """Stage 1 chat messages of the sampled context-sets, exactly as the LLM backend renders
    them (Table 6's context pack, as `LLMBackend.stage1` sends it)."""
    examples = example_triples(report.film_id)
    return [
        render(
            1,
            qtype=cs.qtype,
            type_spec=TYPE_SPECS[cs.qtype],
            examples=examples,
            context_pack=context_pack(cs.payload),
        )
        for cs in report.picked
    ]


def _llm_estimate(store: Store, report: GenerationReport, config) -> dict[str, Any]:
    from pipelines.llm import Gateway, LLMRequest
    from pipelines.qgen.llm_backend import PARAMS

    gateway = Gateway(store, config, run_id="dry-run")
    requests = [
        LLMRequest(
            item_id=f"dry-run:{i}", messages=messages, schema=Stage1Reply, params=dict(PARAMS)
        )
        for i, messages in enumerate(_stage1_messages(report))
    ]
    keys = [gateway.key_of(r) for r in requests]
    hits = lookup_cache(store, keys)
    misses = [r for r, key in zip(requests, keys) if key not in hits]
    stage1 = [sum(len(m["content"]) for m in r.messages) // 4 for r in misses]  # ~4 chars/token
    prompt = sum(3 * tokens + _SELF_CHECK_PROMPT_TOKENS for tokens in stage1)
    completion = len(misses) * sum(_COMPLETION_TOKENS)
    return {
        "cache_hits": len(requests) - len(misses),
        "est_prompt_tokens": prompt,
        "est_completion_tokens": completion,
        "est_cost_usd": config.cost(prompt, completion),
        "model": config.model,
        "endpoint": config.base_url or "OpenAI default",
    }


def plan_generation(store: Store, options: GenerateOptions) -> dict[str, Any]:
    """The dry run: context-sets, discards, items, cache hits, estimated tokens and cost.

    Raises:
        GenerationError: unknown film or type, no belief records, a center with no context-set.
    """
    report = options.run(store, dry_run=True)
    discards = {k: v for k, v in report.discards.items() if k not in ("kept", "total") and v}
    plan = {
        "film_id": options.film_id,
        "backend": options.backend,
        "model": None,
        "endpoint": None,
        "context_sets": report.discards["total"],
        "kept": report.discards["kept"],
        "discards": discards,
        "items": report.sampled,
        "cache_hits": 0,
        "est_prompt_tokens": 0,
        "est_completion_tokens": 0,
        "est_cost_usd": 0.0,
        "by_type": _count_types(report),
    }
    if options.backend == "openai":
        plan.update(_llm_estimate(store, report, options.config()))
    return plan


def _count_types(report: GenerationReport) -> dict[str, int]:
    counts: dict[str, int] = {}
    for cs in report.picked:
        counts[cs.qtype] = counts.get(cs.qtype, 0) + 1
    return dict(sorted(counts.items()))


def run_generate_job(ctx) -> str | None:
    """Run a generation job; returns "stopped" when asked to stop between stages."""
    options = GenerateOptions.from_params(ctx.params)
    state = {"items": 0}

    def on_run(run_id: str, items: int) -> None:
        state["items"] = items
        ctx.attach_run(run_id, GENERATE_STEPS)

    def on_stage(number: int, drafts) -> None:
        _progress(ctx, number, sum(d.status == "failed" for d in drafts))
        if ctx.should_stop():
            raise GenerationStopped(f"stopped after stage {number}")

    try:
        report = options.run(ctx.store, on_run=on_run, on_stage=on_stage)
    except GenerationStopped:
        end_run(ctx.store, ctx.run_id, "stopped")
        return "stopped"
    _progress(ctx, GENERATE_STEPS, report.statuses.get("failed", 0))
    ctx.extra["summary"] = {
        "run_id": report.run_id,
        "statuses": report.statuses,
        "retired_by": report.retire_rules,
    }
    return None


def _progress(ctx, done: int, failed: int) -> None:
    with ctx.store.transaction() as cursor:
        ctx.progress(cursor, done, failed)
