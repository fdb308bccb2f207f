"""`storyscope agreement`: judges against human labels (imported with `storyscope import
storysumm|fables`)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import split_list


def _pick_dataset(store, dataset: str | None) -> str:
    from data_access.tables.agreement_labels import LFVQA, labelled_datasets

    available = labelled_datasets(store)
    if dataset:
        return dataset
    if len(available) == 1:
        return available[0]
    if LFVQA in available:
        return LFVQA
    raise ValueError(
        "choose --dataset: "
        + (", ".join(available) or "no labelled datasets; import storysumm / fables or run a judge")
    )


@app.command()
def agreement(
    store: StoreOption = None,
    dataset: Annotated[
        str | None,
        typer.Option(
            help="storysumm | storysumm-summary | fables | lfvqa | another imported dataset"
        ),
    ] = None,
    judges: Annotated[
        str | None, typer.Option(help="Comma-separated judges (default: all).")
    ] = None,
    confusion: Annotated[
        bool, typer.Option("--confusion", help="Print each pair's confusion matrix.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Cohen's κ, Krippendorff's α, raw agreement and n for every judge pair; Fleiss' κ and
    Krippendorff's α over all judges."""
    from pipelines.agreement import agreement_report

    handle = open_store(store, mode="read")
    try:
        name = _pick_dataset(handle, dataset)
        report = agreement_report(handle, name, split_list(judges) or None)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(report.as_json()))
        return
    typer.echo(f"dataset {report.dataset}: {len(report.judges)} judges")
    typer.echo(f"{'a':<32} {'b':<32} {'kappa':>7} {'alpha':>7} {'agree':>7} {'n':>6}")
    for pair in report.pairs:
        kappa, alpha, agree = (
            "—" if pair[k] is None else f"{pair[k]:.3f}" for k in ("kappa", "alpha", "agreement")
        )
        typer.echo(
            f"{pair['a']:<32} {pair['b']:<32} {kappa:>7} {alpha:>7} {agree:>7} {pair['n']:>6}"
        )
        if confusion:
            typer.echo(report.confusions[(pair["a"], pair["b"])].to_string() + "\n")
    fleiss = "—" if report.fleiss is None else f"{report.fleiss:.3f} (n={report.fleiss_n})"
    alpha = "—" if report.alpha is None else f"{report.alpha:.3f} (n={report.alpha_n})"
    typer.echo(f"Fleiss' kappa: {fleiss}   Krippendorff's alpha (nominal): {alpha}")
