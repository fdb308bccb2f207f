"""Question generation commands: `storyscope generate`, `storyscope check-questions`."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store

WhereOption = Annotated[
    list[str] | None,
    typer.Option(
        "--where",
        envvar="STORYSCOPE_WHERE",
        help="Filter KEY=VALUE[,VALUE...] on film_id, qtype, status, source, run_id, "
        "center or question_id; repeat for AND.",
    ),
]


def parse_where(filters: list[str] | None) -> dict[str, list[str]]:
    """`["qtype=Q1,Q2", "source=paper"]` -> `{"qtype": ["Q1", "Q2"], "source": ["paper"]}`."""
    from data_access.qgen import QUESTION_FILTERS

    parsed: dict[str, list[str]] = {}
    for item in filters or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not value.strip():
            raise fail(f"--where {item!r}: expected KEY=VALUE[,VALUE...]")
        if key not in QUESTION_FILTERS:
            raise fail(
                f"--where {item!r}: unknown field {key!r}; use one of "
                + ", ".join(sorted(QUESTION_FILTERS))
            )
        parsed.setdefault(key, []).extend(v.strip() for v in value.split(",") if v.strip())
    return parsed


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

    handle = open_store(store)
    run_id, checks = run_check_questions(handle, parse_where(where), save=save)
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


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


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
    from pipelines.qgen.entries import ALL_TYPES
    from pipelines.qgen.generate import GenerationError
    from pipelines.qgen.generate import generate as run_generation

    config = None
    if backend == "openai":
        from pipelines.llm import load_config

        try:
            config = load_config({"model": model})
        except ValueError as exc:
            raise fail(str(exc)) from None
    echo = (lambda _: None) if as_json else typer.echo
    try:
        report = run_generation(
            open_store(store),
            film,
            _split(types) or list(ALL_TYPES),
            _split(centers) or None,
            n,
            backend,
            dry_run,
            seed,
            config,
            with_analytics=analytics,
            echo=echo,
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
