"""Belief commands: `storyscope beliefs eval|annotate` (ToM datasets come in with `storyscope
import tom`; `beliefs import` stays as its alias)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from pipelines.beliefs.backends import (
    backend_names,
    backends_help,
    belief_backend,
    offline_backend_names,
)
from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import split_list
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption, batch_summary

beliefs_app = typer.Typer(
    help="Belief records: ToM datasets, the symbolic tracker, annotation.", no_args_is_help=True
)
app.add_typer(beliefs_app, name="beliefs")


class TomDataset(StrEnum):
    hitom = "hitom"
    perceptom = "perceptom"
    bigtom = "bigtom"
    opentom = "opentom"


DatasetArg = Annotated[TomDataset, typer.Argument(help="Which ToM dataset PATH holds.")]
PathArg = Annotated[Path, typer.Argument(help="The dataset file or folder.")]


def _check_path(path: Path) -> None:
    if not path.exists():
        raise fail(f"{path}: no such file or folder")


@beliefs_app.command("eval")
def eval_tom(
    dataset: DatasetArg,
    path: PathArg,
    as_json: JsonOption = False,
    details: Annotated[bool, typer.Option(help="With --json, add breakdowns and notes.")] = False,
    nesting: Annotated[
        str,
        typer.Option(
            help="Hi-ToM only: generator (the published generator's rules, every item) | "
            "symmetric (the paper's stated co-presence assumption, every item) | versioned "
            "(per prompting half, the published MoveAction version its labels follow)."
        ),
    ] = "generator",
    misses: Annotated[int, typer.Option(min=0, help="Print up to N wrong answers.")] = 0,
    backend: Annotated[
        str,
        typer.Option(
            help="symbolic-tracker (the dataset's parsed events) | asymmetry (the film belief"
            " backend over the narrated sentences; hitom and opentom)."
        ),
    ] = "symbolic-tracker",
) -> None:
    """Answer a ToM dataset's questions with the symbolic tracker (or the asymmetry backend)
    and score them."""
    from pipelines.beliefs import evaluator
    from pipelines.beliefs.tom.hitom import TomFormatError

    _check_path(path)
    if nesting not in ("generator", "symmetric", "versioned"):
        raise fail(f"--nesting must be generator, symmetric or versioned, not {nesting!r}")
    if backend not in ("symbolic-tracker", "asymmetry"):
        raise fail(f"--backend must be symbolic-tracker or asymmetry, not {backend!r}")
    try:
        if backend == "asymmetry":
            from pipelines.beliefs.asymmetry.tom import EVALUATORS

            if dataset.value not in EVALUATORS:
                raise fail(f"--backend asymmetry reads {' and '.join(EVALUATORS)} only")
            result = EVALUATORS[dataset.value](path)
        else:
            run = evaluator(dataset.value)
            result = run(path, nesting=nesting) if dataset is TomDataset.hitom else run(path)
    except TomFormatError as exc:
        raise fail(str(exc)) from None
    payload = result.as_json()
    if as_json:
        keys = payload if details else ("n", "accuracy", "by_order")
        typer.echo(json.dumps({key: payload[key] for key in keys}))
    else:
        _print_result(payload)
    reasons = {(e["item"], e.get("question")): e["reason"] for e in payload.get("label_errors", [])}
    for miss in result.misses[:misses]:
        reason = reasons.get((miss.story_id, miss.question), "")
        typer.echo(
            f"  miss {miss.story_id} [{miss.group}] {miss.question} gold={miss.gold}"
            f" tracker={miss.predicted}" + (f"  ({reason})" if reason else ""),
            err=as_json,
        )


def _print_result(payload: dict) -> None:
    typer.echo(
        f"{payload['dataset']} (backend: {payload.get('backend', 'symbolic-tracker')}):"
        f" n={payload['n']}"
        f" accuracy={payload['accuracy']:.4f}"
    )
    for key, value in payload.items():
        if key.startswith("by_") and isinstance(value, dict):
            cells = ", ".join(f"{k} {v:.4f}" for k, v in value.items())
            typer.echo(f"  {key}: {cells}")
    for key, value in payload.items():
        if isinstance(value, list):  # label errors: count here, items with --misses / --json
            typer.echo(f"  {key}: {len(value)} (list them with --misses N or --json --details)")
        elif not key.startswith("by_") and key not in ("n", "accuracy", "dataset", "backend"):
            typer.echo(f"  {key}: {value}")


# the `--backend` choices: the belief backend registry's names
Backend = StrEnum("Backend", {name: name for name in backend_names()})


@beliefs_app.command("annotate")
def annotate_film(
    film: Annotated[str, typer.Option("--film", help="Film id in the store.")],
    store: StoreOption = None,
    backend: Annotated[
        Backend,
        typer.Option(help=backends_help()),
    ] = Backend("rules"),
    characters: Annotated[str | None, typer.Option(help="Comma-separated character names.")] = None,
    scenes: Annotated[
        str | None, typer.Option(help="Scene range a:b (0-based, end excluded).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Compute (or count calls) without writing.")
    ] = False,
    budget: Annotated[float | None, typer.Option(help="openai: USD budget for this run.")] = None,
    coverage: Annotated[
        str,
        typer.Option(
            help="openai: paper (every character gets every call in every scene, App. D) | "
            "present (skip Table 20 for absent characters, Table 21 for non-perceivers).",
            envvar="STORYSCOPE_BELIEF_COVERAGE",
        ),
    ] = "paper",
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    as_json: JsonOption = False,
) -> None:
    """Belief records for a stored film: presence, witnessed events, told / inferred / false
    beliefs, revisions and meta-beliefs."""
    from pipelines.beliefs.annotate import AnnotateError, Selection, annotate, parse_scene_range

    if executor != "local":
        _annotate_on_executor(film, store, backend, executor, ray_address, dry_run, as_json)
        return
    try:
        first, stop = parse_scene_range(scenes)
        names = split_list(characters) or None
        if coverage not in ("paper", "present"):
            raise AnnotateError(f"--coverage {coverage!r}: expected paper or present")
        options = (
            {"budget_usd": budget, "coverage": coverage}
            if not belief_backend(backend.value).offline
            else {}
        )
        result = annotate(
            open_store(store, mode="write"),
            film,
            backend.value,
            Selection(first, stop, names),
            dry_run=dry_run,
            **options,
        )
    except AnnotateError as exc:
        raise fail(str(exc)) from None
    payload = {
        "film_id": result.film_id,
        "backend": result.backend,
        "run_id": result.run_id,
        "dry_run": dry_run,
        "rows": result.counts,
        **{
            k: v
            for k, v in result.params.items()
            if k
            in (
                "calls",
                "calls_by_coverage",
                "extra_calls_for_paper_coverage",
                "failed",
                "unparsed",
            )
        },
    }
    if as_json:
        typer.echo(json.dumps(payload, default=str))
        return
    rows = ", ".join(f"{table} {n:,}" for table, n in result.counts.items())
    if dry_run and "calls" in result.params:
        rows = (
            f"rows from up to {result.params['calls']:,} calls to {result.params['model']}"
            f" (coverage {result.params['coverage']}; the paper's every-character coverage costs"
            f" {result.params['extra_calls_for_paper_coverage']:,} calls more than 'present',"
            " an estimate)"
        )
    verb = "would write" if dry_run else "wrote"
    extra = "".join(
        f", {k} {result.params[k]}" for k in ("failed", "unparsed", "status") if k in result.params
    )
    typer.echo(
        f"{film} (backend: {result.backend}): {verb} {rows}{extra}"
        + (f" (run {result.run_id})" if result.run_id else "")
    )


def _annotate_on_executor(film, store, backend, executor, ray_address, dry_run, as_json) -> None:
    """`annotate --executor ray`: the film as one unit of the scaled path (`beliefs.scaled`),
    offline backends only; the rows are the ones a local run writes."""
    from pipelines.beliefs.backend_io import AnnotateError
    from pipelines.beliefs.scaled import annotate_films
    from pipelines.cli.scale_options import open_executor

    if backend.value not in offline_backend_names() or dry_run:
        offline = ", ".join(offline_backend_names())
        raise fail(
            f"--executor {executor} runs the offline backends ({offline})"
            " and writes; use annotate-many for openai, or --executor local for --dry-run"
        )
    runner = open_executor(executor, ray_address)
    try:
        batch = annotate_films(
            open_store(store, mode="write"), [film], runner, backend=backend.value
        )
    except AnnotateError as exc:
        raise fail(str(exc)) from None
    finally:
        runner.close()
    summary = batch_summary(batch, film_id=film, backend=backend.value)
    typer.echo(json.dumps(summary) if as_json else " ".join(f"{k}={v}" for k, v in summary.items()))
    if batch.failed:
        raise fail(f"{film}: the unit failed; run the same command again to retry it")
