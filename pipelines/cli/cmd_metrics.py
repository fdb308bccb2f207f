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
    from pipelines.metrics.trail_table import trail_table

    handle = open_store(store, mode="read")
    try:
        table = metrics_table(
            handle,
            judge,
            by.replace(" ", ""),
            resamples,
            seed,
            precision_when_empty,
        )
    except ValueError as exc:
        # agent loops that all failed leave nothing to judge: their trail is still shown
        if not as_json:
            _echo_trail(trail_table(handle, None, None, resamples, seed))
        raise fail(str(exc)) from None
    trail = trail_table(handle, table.judge, None, resamples, seed)
    if as_json:
        payload = {"precision_convention": table.precision_convention, "rows": table.rows}
        typer.echo(json.dumps({**payload, **({"agent_trail": trail} if trail else {})}))
        return
    typer.echo(
        f"judge {table.judge}  ({table.resamples} resamples, seed {table.seed}; "
        f"95% CI by resampling questions)"
    )
    typer.echo(precision_convention_note(table.precision_convention))
    if table.incomplete_answers:
        typer.echo(f"note: {table.incomplete_answers} answers left out (not every claim judged)")
    lexical = lexical_table(handle, table.judge)
    header = (
        f"{'setting':<40} {'type':<5} {'n':>5}  {'Rec':>17} {'Prec':>17} {'F1':>17} "
        f"{'Contra':>17} {'Resp':>17}"
    )
    typer.echo(header + ("   RL    ClmRL Cov@.5 Hedge" if not lexical.empty else ""))
    for row in table.rows:
        cells = "".join(f" {_cell(row[m], row[m + '_ci'], row['n'])}" for m in _MEASURES)
        extra = ""
        if not lexical.empty and row["type"] is None and row["setting"] in lexical.index:
            lx = lexical.loc[row["setting"]]
            extra = f"  {lx.rl:.3f} {lx.clm_rl:.3f}  {lx.cov50:.3f} {lx.hedge:.3f}"
        typer.echo(f"{row['setting'][:40]:<40} {row['type'] or '':<5} {row['n']:>5} {cells}{extra}")
    if any(_zero_width(row[m + "_ci"]) for row in table.rows for m in _MEASURES):
        typer.echo(ZERO_WIDTH_NOTE)
    _echo_trail(trail)


_MEASURES = ("recall", "precision", "f1", "contradiction", "responding")
# As the Verdicts page says it (viz.verdicts.ZERO_WIDTH_NOTE): an interval of no width is
# named for why it has none, never printed as "[0.50,0.50]".
ZERO_WIDTH_NOTE = (
    "(n=1): one question, nothing to resample; (all equal): every question scores the same,"
    " so every resample does too."
)


def _zero_width(interval) -> bool:
    return interval is not None and interval[0] is not None and interval[0] == interval[1]


def _cell(value, interval, n: int) -> str:
    if value is None:
        return f"{'—':>17}"
    if _zero_width(interval):
        return f"{value:.3f} {'(n=1)' if n == 1 else '(all equal)':<11}"
    return f"{value:.3f} [{interval[0]:.2f},{interval[1]:.2f}]"


# (row key, column title, width, decimals) of the agents' trail table (docs/SETTINGS.md)
_TRAIL_COLUMNS = (
    ("touched_share", "Touched", 19, 3),
    ("tiou", "tIoU", 19, 3),
    ("turns", "Steps", 17, 1),
    ("tool_calls", "Calls", 17, 1),
    ("tokens", "Tokens", 23, 0),
)


def _echo_trail(rows: list[dict]) -> None:
    """The agents' evidence trail per setting (nothing without agent trails)."""
    if not rows:
        return
    typer.echo(
        "\nagents: the evidence trail (means over questions, 95% CI; Touched = share of "
        "evidence scenes touched, tIoU = CG-Bench clue-grounding IoU)"
    )
    header = "".join(f" {title:>{width}}" for _, title, width, _ in _TRAIL_COLUMNS)
    typer.echo(
        f"{'setting':<40} {'tier':<7} {'n':>4} {header}  answered step_limit failed bad_calls"
        "  rho(touched,recall)"
    )
    for row in rows:
        cells = "".join(
            f" {_trail_cell(row[key], row[key + '_ci'], digits, row['n']):>{width}}"
            for key, _, width, digits in _TRAIL_COLUMNS
        )
        rho = row["touched_recall_rho"]
        relation = "—" if rho is None else f"{rho:.2f} (n={row['recall_n']})"
        typer.echo(
            f"{row['setting'][:40]:<40} {row['tier'] or '':<7} {row['n']:>4} {cells}"
            f"  {row['answered']:>8} {row['step_limit']:>10} {row['failed']:>6} "
            f"{row['bad_calls']:>9}  {relation}"
        )
    if any(_zero_width(row[key + "_ci"]) for row in rows for key, *_ in _TRAIL_COLUMNS):
        typer.echo(ZERO_WIDTH_NOTE)


def _trail_cell(value, interval, digits: int, n: int) -> str:
    if value is None:
        return "—"
    if _zero_width(interval):
        return f"{value:.{digits}f} {'(n=1)' if n == 1 else '(all equal)'}"
    return f"{value:.{digits}f} [{interval[0]:.{digits}f},{interval[1]:.{digits}f}]"
