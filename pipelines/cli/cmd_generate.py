"""Question generation commands: `storyscope generate`, `storyscope check-questions`."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import parse_where, split_list

WhereOption = Annotated[
    list[str] | None,
    typer.Option(
        "--where",
        envvar="STORYSCOPE_WHERE",
        help="Filter KEY=V1[,V2...] on film_id, qtype, status, source, run_id, center or"
        " question_id; several joined by ';' or the option repeated, for AND.",
    ),
]


def where_keys() -> dict[str, str]:
    """check-questions filters on the question fields of
    `data_access.tables.qgen_records.QUESTION_FILTERS`."""
    from data_access.tables.qgen_records import QUESTION_FILTERS

    return {key: key for key in QUESTION_FILTERS}


@app.command("check-questions")
def check_questions(
    where: WhereOption = None,
    save: Annotated[bool, typer.Option("--save/--no-save", help="Record a check run.")] = True,
    analytics: Annotated[
        bool,
        typer.Option(
            "--analytics", help="Also store near-duplicates, UMAP, Self-BLEU and opening frames."
        ),
    ] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run the automatic question checks (LF-VideoQA App. F.2) on stored questions."""
    from pipelines.qgen.check_run import run_check_questions

    handle = open_store(store, mode="write")
    run_id, checks = run_check_questions(handle, parse_where(where, where_keys()), save=save)
    if analytics and run_id and checks:
        from pipelines.qgen.analytics import analyze_stored_questions

        analyze_stored_questions(handle, run_id, [item.question_id for item in checks])
    if as_json:
        typer.echo(
            json.dumps(
                {"questions": [item.as_json() for item in checks]}, indent=2, ensure_ascii=False
            )
        )
        return
    failed = [item for item in checks if not item.result.passed]
    typer.echo(
        f"{len(checks)} questions checked, {len(failed)} failed"
        + (f" (run {run_id})" if run_id else "")
    )
    for item in failed:
        for failure in item.result.failures:
            typer.echo(f"  {item.question_id} [{item.source}] {failure.check}: {failure.reason}")


@app.command()
def generate(
    film: Annotated[str, typer.Option("--film", envvar="STORYSCOPE_FILM", help="Film id.")],
    types: Annotated[
        str | None, typer.Option("--types", help="Question types, e.g. Q1,N2.")
    ] = None,
    centers: Annotated[
        str | None, typer.Option("--centers", help="Center characters, comma-separated.")
    ] = None,
    n: Annotated[int, typer.Option("--n", help="Context-sets to sample.")] = 20,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            envvar="STORYSCOPE_QGEN_BACKEND",
            help="template (offline) or openai (the LLM gateway).",
        ),
    ] = "template",
    model: Annotated[
        str | None, typer.Option("--model", help="LLM model (openai backend).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed.")] = 0,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Build and sample context-sets only.")
    ] = False,
    analytics: Annotated[
        bool,
        typer.Option(
            "--analytics/--no-analytics", help="Store near-duplicates, UMAP, Self-BLEU, frames."
        ),
    ] = True,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Generate questions on a film: context-sets, Stages 1–3, checks, retirement (App. F)."""
    from pipelines.qgen.generate import GenerateOptions, GenerationError
    from pipelines.qgen.generate import generate as run_generation

    options = GenerateOptions(
        film_id=film,
        qtypes=split_list(types),
        centers=split_list(centers),
        n=n,
        backend=backend,
        seed=seed,
        with_analytics=analytics,
        model=model,
    )
    try:
        config = options.config()
    except ValueError as exc:
        raise fail(str(exc)) from None
    echo = (lambda _: None) if as_json else typer.echo
    try:
        report = run_generation(
            open_store(store, mode="write"), options, dry_run=dry_run, llm_config=config, echo=echo
        )
    except GenerationError as exc:
        raise fail(str(exc)) from None
    summary = {
        "run_id": report.run_id,
        "film_id": report.film_id,
        "backend": report.backend,
        "dry_run": dry_run,
        "context_sets": report.discards,
        "sampled": report.sampled,
        "statuses": report.statuses,
        "retired_by": report.retire_rules,
    }
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    typer.echo(f"context-sets: {report.discards}")
    if not dry_run:
        typer.echo(
            f"run {report.run_id} [{report.backend}]: {report.statuses}; "
            f"retired by {report.retire_rules}"
        )
        for draft in report.drafts:
            if draft.question:
                typer.echo(f"  [{draft.status}] {draft.qtype} {draft.question}")
