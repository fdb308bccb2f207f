"""`storyscope judge-eval storysumm DIR`: how far to trust a judge, against human labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store

judge_eval_app = typer.Typer(
    help="Score a judge against human faithfulness labels.", no_args_is_help=True
)
app.add_typer(judge_eval_app, name="judge-eval")


@judge_eval_app.command()
def storysumm(
    directory: Annotated[Path, typer.Argument(help="A StorySumm checkout (storysumm.json).")],
    backend: Annotated[
        str,
        typer.Option(envvar="STORYSCOPE_JUDGE_BACKEND", help="lexical | minilm-support | openai"),
    ] = "lexical",
    model: Annotated[str | None, typer.Option(help="Model (openai backend).")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    limit: Annotated[int | None, typer.Option(help="Judge the first N summaries only.")] = None,
    split: Annotated[
        str | None,
        typer.Option(help="val | test: only that split (offline thresholds were set on val)."),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Judge every summary sentence against its story; report κ, accuracy and balanced accuracy
    beside the released detectors of predicted_labels/."""
    from data_access.tables.judge_evals import record_judge_eval
    from pipelines.agreement.storysumm_eval import BACKENDS, evaluate
    from pipelines.llm.failures import failure_lines, run_failures

    if backend not in BACKENDS:
        raise fail(f"--backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if split not in (None, "val", "test"):
        raise fail(f"--split {split!r}: expected val or test")
    if not (directory / "storysumm.json").is_file():
        raise fail(f"{directory}: no storysumm.json (expected a StorySumm checkout)")
    llm = {k: v for k, v in {"model": model, "base_url": base_url}.items() if v is not None}
    handle = open_store(store, mode="write")
    try:
        result = evaluate(directory, backend, store=handle, llm=llm, limit=limit, split=split)
    except ValueError as exc:
        raise fail(str(exc)) from None
    figures = result.as_json()
    judge = _model(llm) if backend == "openai" else backend
    if split is not None:  # figures of one split are not comparable with the whole set's
        judge = f"{judge} [{split}]"
    record_judge_eval(handle, "storysumm", judge, figures)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    typer.echo(
        f"{backend} judge on StorySumm{f' ({split} split)' if split else ''}: "
        f"{result.n_summaries} summaries, "
        f"{result.n_sentences} sentences; sentence κ {result.kappa:.3f}, "
        f"accuracy {result.accuracy:.3f}; summary balanced accuracy "
        f"{result.balanced_accuracy:.3f}"
    )
    for anchor in result.anchors:
        typer.echo(f"  anchor {anchor['name']}: balanced accuracy {anchor['balanced_accuracy']}")
    if result.run_id:
        typer.echo(f"LLM calls recorded under run {result.run_id}")
    for line in [*result.notes, *failure_lines(run_failures(handle, result.run_id))]:
        typer.echo(line)


def _model(llm: dict) -> str:
    from pipelines.llm import load_config

    return load_config(llm).model
