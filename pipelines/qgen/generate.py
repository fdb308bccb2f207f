"""A generation run end to end (LF-VideoQA §3.2, App. F): context-sets → discard rules →
sampling → Stage 1 → checks → Stage 2 → Stage 3 → retirement → gold self-check → analytics.

Everything the run derives is written under its run id in one transaction at the end (context-
sets with their discard reasons, stage outputs, questions with final status, rubric claims,
outcomes, check results, analytics), so a failed run leaves no half-written rows; LLM calls are
cached by the gateway as they go, so rerunning a failed run replays them instead of paying again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from data_access.store import Store, append_rows
from data_access.tables import qgen_records
from data_access.tables.runs import RunSpec, finish_run, insert_run, new_run_id
from pipelines.qgen.analytics import QuestionAnalytics, analyze_questions, write_analytics
from pipelines.qgen.check_run import QuestionCheck, check_rows
from pipelines.qgen.context_sets import ContextSet, build_context_set, discard_counts
from pipelines.qgen.drafts import Draft
from pipelines.qgen.entries import ALL_TYPES, candidates
from pipelines.qgen.film_view import FilmView
from pipelines.qgen.prompts import PROMPT_VERSION, TYPE_SPECS
from pipelines.qgen.sampling import sample_context_sets
from pipelines.qgen.stages import (
    apply_self_check,
    apply_stage1,
    apply_stage2,
    apply_stage3,
    new_draft,
)


class GenerationError(ValueError):
    """A user error: unknown film, type or center (the CLI prints it without a traceback)."""


@dataclass
class GenerateOptions:
    """What to generate: one film, its question types and centers, and how to write.

    All fields are JSON-serialisable: a `generate` job stores them as its parameters (never a key;
    the openai backend reads its endpoint from the environment or secrets.toml).

    Attributes:
        film_id: the film.
        qtypes: question types to generate (empty: all of `entries.ALL_TYPES`).
        centers: restrict to these center characters (any member, for Q1); empty: all.
        n: how many context-sets to sample for generation.
        backend: "template" (offline) or "openai" (the gateway).
        seed: sampling seed.
        with_analytics: also compute and store near-duplicates, UMAP, Self-BLEU, frames.
        model: the openai backend's model, overriding the configured one.
    """

    film_id: str
    qtypes: list[str] = field(default_factory=lambda: list(ALL_TYPES))
    centers: list[str] = field(default_factory=list)
    n: int = 20
    backend: str = "template"
    seed: int = 0
    with_analytics: bool = True
    model: str | None = None

    def params(self) -> dict[str, Any]:
        """Job parameters (stored)."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> GenerateOptions:
        """The options back from stored job parameters."""
        return cls(**{k: v for k, v in params.items() if k in cls.__dataclass_fields__})

    def config(self):
        """The gateway configuration for the openai backend (env / secrets.toml), else None."""
        if self.backend != "openai":
            return None
        from pipelines.llm import load_config

        return load_config({"model": self.model} if self.model else None)

    def run(self, store: Store, dry_run: bool = False, **hooks) -> GenerationReport:
        """`generate` over these options."""
        return generate(store, self, dry_run=dry_run, **hooks)


@dataclass
class GenerationReport:
    """What a generation run did, for the CLI and tests."""

    run_id: str | None
    film_id: str
    backend: str
    discards: dict[str, int]
    sampled: int
    statuses: dict[str, int] = field(default_factory=dict)
    retire_rules: dict[str, int] = field(default_factory=dict)
    drafts: list[Draft] = field(default_factory=list)
    context_sets: list[ContextSet] = field(default_factory=list)
    picked: list[ContextSet] = field(default_factory=list)  # the sampled ones (a dry run's items)
    analytics: QuestionAnalytics | None = None
    # beliefs / meta-beliefs left out before context-sets (FilmView.for_questions)
    left_out: dict[str, int] = field(default_factory=dict)


def build_context_sets(
    view: FilmView, qtypes: Sequence[str], centers: Sequence[str] | None = None
) -> list[ContextSet]:
    """Every context-set of the requested types (and centers), discard reasons applied."""
    wanted = {c.lower() for c in centers or []}
    built = []
    for candidate in candidates(view, tuple(qtypes)):
        if wanted and not wanted & {m.lower() for m in candidate.members}:
            continue
        built.append(build_context_set(view, candidate, TYPE_SPECS[candidate.qtype]))
    return built


def _validate(qtypes: Sequence[str], n: int) -> None:
    unknown = [t for t in qtypes if t not in ALL_TYPES]
    if unknown:
        raise GenerationError(f"unknown question type(s) {unknown}; use {', '.join(ALL_TYPES)}")
    if n < 1:
        raise GenerationError(f"--n must be at least 1, got {n}")


def run_stages(
    backend,
    drafts: list[Draft],
    echo: Callable[[str], None] = lambda _: None,
    on_stage: Callable[[int, list[Draft]], None] | None = None,
) -> None:
    """Stages 1–3 and the self-check over the drafts still active after each step.

    `on_stage(number, drafts)` is called after each stage (the job runner's progress and stop
    point: raising from it abandons the run, which `generate` then marks failed).
    """
    steps = (
        (1, "stage1", apply_stage1),
        (2, "stage2", apply_stage2),
        (3, "stage3", apply_stage3),
        (4, "self_check", apply_self_check),
    )
    for number, method, apply in steps:
        active = [d for d in drafts if d.active]
        if not active:
            return
        echo(f"  stage {number}: {len(active)} item(s)")
        for draft, result in zip(active, getattr(backend, method)(active)):
            apply(draft, result)
        if on_stage is not None:
            on_stage(number, drafts)


def plan_generation(
    store: Store, options: GenerateOptions, echo: Callable[[str], None] = lambda _: None
) -> tuple[FilmView, GenerationReport]:
    """The film's view and a report holding every context-set (discard reasons applied) and
    the sampled ones: everything a run decides before any stage runs.

    Raises:
        GenerationError: unknown film / type / center, no belief records, bad n.
    """
    film_id, backend, n, seed = options.film_id, options.backend, options.n, options.seed
    qtypes, centers = options.qtypes or list(ALL_TYPES), options.centers or None
    _validate(qtypes, n)
    records = qgen_records.film_records(store, film_id)
    if records is None:
        raise GenerationError(f"film {film_id!r} is not in the store")
    if records.beliefs.empty and records.meta_beliefs.empty:
        raise GenerationError(
            f"film {film_id!r} has no belief records: run the belief pipeline first"
        )
    view, left_out = FilmView.from_records(records).for_questions()
    if any(left_out.values()):
        echo(
            f"{film_id}: left out {left_out['beliefs']} belief(s) and "
            f"{left_out['meta_beliefs']} meta-belief(s) held by a non-character or stating a "
            "screenplay direction or a pasted line"
        )
    context_sets = build_context_sets(view, qtypes, centers)
    if centers and not context_sets:
        raise GenerationError(
            f"no context-set has center(s) {list(centers)}; holders with belief "
            f"records: {', '.join(view.holders()[:20])}"
        )
    picked = sample_context_sets(context_sets, n, view.film_end(), seed)
    report = GenerationReport(
        None,
        film_id,
        backend,
        discard_counts(context_sets),
        len(picked),
        context_sets=context_sets,
        picked=picked,
        left_out=left_out,
    )
    echo(
        f"{film_id}: {len(context_sets)} context-sets, {report.discards['kept']} kept, "
        f"{len(picked)} sampled"
    )
    return view, report


def prefix_context_sets(context_sets: list[ContextSet], run_id: str) -> None:
    """Context-set ids made unique to the run (question ids derive from them)."""
    for cs in context_sets:
        cs.context_set_id = f"{run_id}/{cs.context_set_id}"


def run_spec(options: GenerateOptions, worker) -> RunSpec:
    """The `qgen.generate` run of these options written by `worker` (a stage backend)."""
    qtypes, centers = options.qtypes or list(ALL_TYPES), options.centers or None
    return RunSpec(
        step="qgen.generate",
        backend=worker.name,
        model=worker.model,
        prompt_version=PROMPT_VERSION if options.backend != "template" else "template-v1",
        params={
            "qtypes": list(qtypes),
            "centers": list(centers or []),
            "n": options.n,
            "seed": options.seed,
        },
        source=options.film_id,
    )


def generate(
    store: Store,
    options: GenerateOptions,
    *,
    dry_run: bool = False,
    llm_config=None,
    echo: Callable[[str], None] = lambda _: None,
    on_run: Callable[[str, int], None] | None = None,
    on_stage: Callable[[int, list[Draft]], None] | None = None,
) -> GenerationReport:
    """Run question generation on one film and store the run (unless `dry_run`).

    Args:
        store: the store holding the film's belief records.
        options: the film, types, centers, sample size, backend, seed and analytics switch.
        dry_run: build, discard and sample context-sets only; write nothing.
        llm_config: `LLMConfig` for the openai backend (default: `options.config()`).
        echo: progress printer.
        on_run: called with (run_id, sampled items) once the run row exists (a job attaches it).
        on_stage: called after each stage with (stage number 1–4, drafts); see `run_stages`.

    Raises:
        GenerationError: unknown film / type, no belief records, bad n.
    """
    view, report = plan_generation(store, options, echo)
    if dry_run:
        return report
    run_id = new_run_id("qgen.generate")
    context_sets = report.context_sets
    prefix_context_sets(context_sets, run_id)
    if llm_config is None:
        llm_config = options.config()
    worker = _backend(options.backend, store, llm_config, run_id, view)
    with store.transaction() as cursor:
        insert_run(cursor, run_spec(options, worker), run_id)
    drafts = [new_draft(cs, run_id) for cs in report.picked]
    try:
        if on_run is not None:
            on_run(run_id, len(drafts))
        run_stages(worker, drafts, echo, on_stage)
        retire_rejected_before(drafts, qgen_records.rejected_question_texts(store, options.film_id))
        report.analytics = _analytics(drafts) if options.with_analytics else None
        _store_run(store, run_id, view, context_sets, drafts, report.analytics, worker.name)
    except BaseException:
        with store.transaction() as cursor:
            finish_run(cursor, run_id, status="failed")
        raise
    report.run_id, report.drafts = run_id, drafts
    report.statuses = dict(Counter(d.status for d in drafts))
    report.retire_rules = dict(Counter(d.retire_rule for d in drafts if d.retire_rule))
    return report


def retire_rejected_before(drafts: list[Draft], rejected: dict[str, str]) -> None:
    """Retire every candidate whose text a reviewer already rejected on this film, word for
    word (case and spacing aside): a rejected question is never offered again as new."""
    for draft in drafts:
        if draft.status != "candidate" or not draft.question:
            continue
        earlier = rejected.get(" ".join(draft.question.lower().split()))
        if earlier:
            draft.retire("rejected_before", f"a reviewer rejected this text before ({earlier})")


def _backend(name: str, store: Store, llm_config, run_id: str, view: FilmView):
    if name == "template":
        from pipelines.qgen.template_backend import TemplateBackend

        return TemplateBackend()
    if name == "openai":
        if llm_config is None:
            raise GenerationError("the openai backend needs an LLM configuration")
        from pipelines.qgen.llm_backend import LLMBackend

        return LLMBackend(store, llm_config, run_id, view)
    raise GenerationError(f"unknown backend {name!r}; use template or openai")


def _analytics(drafts: list[Draft]) -> QuestionAnalytics | None:
    import pandas as pd

    written = [d for d in drafts if d.question]
    if not written:
        return None
    frame = pd.DataFrame(
        {
            "question_id": [d.question_id for d in written],
            "qtype": [d.qtype or d.context_set.qtype for d in written],
            "text": [d.question for d in written],
        }
    )
    return analyze_questions(frame)


def _store_run(
    store: Store,
    run_id: str,
    view: FilmView,
    context_sets: list[ContextSet],
    drafts: list[Draft],
    analytics: QuestionAnalytics | None,
    backend: str,
) -> None:
    with store.transaction() as cursor:
        insert_draft_rows(cursor, run_id, view, drafts, backend)
        close_run(cursor, run_id, context_sets, analytics, drafts)


def insert_draft_rows(cursor, run_id: str, view: FilmView, drafts: list[Draft], backend: str):
    """Every row a run keeps per draft: stage outputs, questions, rubric claims, evidence,
    outcomes and check results (a scaled-out run writes them a batch of drafts at a time)."""
    from pipelines.qgen.records import (
        claim_rows,
        evidence_rows,
        name_violations,
        outcome_rows,
        question_rows,
        stage_rows,
    )

    checks = [
        QuestionCheck(
            d.question_id,
            "generated",
            view.film_id,
            d.qtype,
            d.checks,
            name_violations(d),
            d.context_set.payload.get("anchor_location_rivals"),
        )
        for d in drafts
        if d.checks is not None
    ]
    results, failures = check_rows(run_id, checks)
    append_rows(
        cursor,
        "qgen_stage_outputs",
        stage_rows(run_id, drafts, backend),
        qgen_records.COLUMNS["qgen_stage_outputs"],
    )
    append_rows(
        cursor, "questions", question_rows(run_id, view, drafts), qgen_records.COLUMNS["questions"]
    )
    append_rows(
        cursor, "rubric_claims", claim_rows(run_id, drafts), qgen_records.COLUMNS["rubric_claims"]
    )
    append_rows(
        cursor,
        "question_evidence",
        evidence_rows(run_id, drafts),
        qgen_records.COLUMNS["question_evidence"],
    )
    append_rows(
        cursor, "qgen_outcomes", outcome_rows(run_id, drafts), qgen_records.COLUMNS["qgen_outcomes"]
    )
    append_rows(
        cursor, "question_check_results", results, qgen_records.COLUMNS["question_check_results"]
    )
    append_rows(
        cursor, "question_check_failures", failures, qgen_records.COLUMNS["question_check_failures"]
    )


def close_run(
    cursor,
    run_id: str,
    context_sets: list[ContextSet],
    analytics: QuestionAnalytics | None,
    drafts: list[Draft] | None = None,
    counts: tuple[int, int] | None = None,
) -> None:
    """The run's context-sets (with discard reasons) and analytics, and its end: (items,
    failed) from `drafts`, or `counts` when the drafts were written batch by batch."""
    append_rows(
        cursor,
        "context_sets",
        [
            {
                "context_set_id": cs.context_set_id,
                "film_id": cs.film_id,
                "qtype": cs.qtype,
                "center": cs.center,
                "anchor_scene": cs.anchor_scene,
                "payload": json.dumps(cs.payload, default=str, ensure_ascii=False),
                "discard_reason": cs.discard_reason,
                "run_id": run_id,
            }
            for cs in context_sets
        ],
        qgen_records.COLUMNS["context_sets"],
    )
    if analytics is not None:
        write_analytics(cursor, run_id, analytics)
    if counts is None:
        counts = (len(drafts), sum(d.status == "failed" for d in drafts))
    finish_run(cursor, run_id, n_items=counts[0], n_failed=counts[1])
