"""`storyscope metrics`: Eq. 1 recall / precision / F1 / contradiction with bootstrap CIs."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store


@app.command()
def metrics(
    store: StoreOption = None,
    judge: Annotated[
        str | None,
        typer.Option(help="Judge name (default: the only judge).", envvar="STORYSCOPE_JUDGE"),
    ] = None,
    by: Annotated[
        str, typer.Option(help="setting (Table 3) or setting,type (Table 4).")
    ] = "setting",
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    precision_when_empty: Annotated[
        str,
        typer.Option(
            help="P of an answer asserting no claim: 'undefined' (left out of P's mean; "
            "default, as FActScore) or 'zero' (the earlier P = 0).",
            envvar="STORYSCOPE_PRECISION_WHEN_EMPTY",
        ),
    ] = "undefined",
    as_json: JsonOption = False,
) -> None:
    """Question-averaged Rec / Prec / F1 / Contra / Resp per setting (or setting × type), with
    95% CIs; Resp is the share of answers asserting at least one claim."""
    from pipelines.metrics import lexical_table, metrics_table, precision_convention_note

    try:
        table = metrics_table(
            open_store(store, mode="read"),
            judge,
            by.replace(" ", ""),
            resamples,
            seed,
            precision_when_empty,
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(
            json.dumps({"precision_convention": table.precision_convention, "rows": table.rows})
        )
        return
    typer.echo(
        f"judge {table.judge}  ({table.resamples} resamples, seed {table.seed}; "
        f"95% CI by resampling questions)"
    )
    typer.echo(precision_convention_note(table.precision_convention))
    if table.incomplete_answers:
        typer.echo(f"note: {table.incomplete_answers} answers left out (not every claim judged)")
    lexical = lexical_table(open_store(store, mode="read"), table.judge)
    header = (
        f"{'setting':<40} {'type':<5} {'n':>5}  {'Rec':>17} {'Prec':>17} {'F1':>17} "
        f"{'Contra':>17} {'Resp':>17}"
    )
    typer.echo(header + ("   RL    ClmRL Cov@.5 Hedge" if not lexical.empty else ""))
    for row in table.rows:
        cells = "".join(
            f" {_cell(row[m], row[m + '_ci'])}"
            for m in ("recall", "precision", "f1", "contradiction", "responding")
        )
        extra = ""
        if not lexical.empty and row["type"] is None and row["setting"] in lexical.index:
            lx = lexical.loc[row["setting"]]
            extra = f"  {lx.rl:.3f} {lx.clm_rl:.3f}  {lx.cov50:.3f} {lx.hedge:.3f}"
        typer.echo(f"{row['setting'][:40]:<40} {row['type'] or '':<5} {row['n']:>5} {cells}{extra}")


def _cell(value, interval) -> str:
    if value is None:
        return f"{'—':>17}"
    return f"{value:.3f} [{interval[0]:.2f},{interval[1]:.2f}]"
