"""`storyscope compare`: paired comparison of two settings under one judge (pipelines.compare)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store


def resolve_setting(store, name: str) -> str:
    """A setting id from its id or its (unique) label.

    Raises:
        ValueError: no setting, or a label shared by several settings.
    """
    from data_access.queries.verdicts_view import settings_list

    settings = settings_list(store)
    if name in set(settings["setting_id"]):
        return name
    matches = settings[settings["label"] == name]
    if len(matches) == 1:
        return str(matches["setting_id"].iloc[0])
    known = ", ".join(settings["setting_id"].head(12)) or "none"
    hint = "several settings have this label" if len(matches) else f"known settings: {known}"
    raise ValueError(f"setting {name!r}: {hint}")


@app.command()
def compare(
    judge: Annotated[
        str | None,
        typer.Option(help="Judge (default: the only judge).", envvar="STORYSCOPE_JUDGE"),
    ] = None,
    a: Annotated[
        str, typer.Option("--a", help="Setting A (id or label).", envvar="STORYSCOPE_A")
    ] = "",
    b: Annotated[
        str, typer.Option("--b", help="Setting B (id or label).", envvar="STORYSCOPE_B")
    ] = "",
    by: Annotated[
        str | None,
        typer.Option(help="`type`: one result per question type too.", envvar="STORYSCOPE_BY"),
    ] = None,
    film: Annotated[
        str | None, typer.Option(help="Only this film's questions.", envvar="STORYSCOPE_FILM")
    ] = None,
    resamples: Annotated[
        int, typer.Option(help="Bootstrap / permutation resamples.", envvar="STORYSCOPE_RESAMPLES")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Random seed.", envvar="STORYSCOPE_SEED")] = 0,
    top: Annotated[
        int, typer.Option(help="How many largest differences to list.", envvar="STORYSCOPE_TOP")
    ] = 10,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Per-question F1 difference (b − a) on the questions both settings answered: mean with a
    paired bootstrap 95% CI, sign-test and permutation p-values, wins / ties / losses."""
    from data_access.queries.verdicts_view import answer_counts
    from pipelines.compare import compare_settings
    from pipelines.metrics import pick_judge

    if by not in (None, "type"):
        raise fail(f"--by {by!r}: only 'type' is supported")
    if not a or not b:
        raise fail("name both settings: --a SETTING --b SETTING")
    handle = open_store(store, mode="read")
    try:
        judge_id = pick_judge(handle, judge)
        setting_a, setting_b = resolve_setting(handle, a), resolve_setting(handle, b)
        counts = answer_counts(handle, judge_id, film, (), (setting_a, setting_b))
        result = compare_settings(
            counts, judge_id, setting_a, setting_b, by == "type", resamples=resamples, seed=seed
        )
    except ValueError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.as_json(top), default=str))
        return
    _print(result, top)


def _fmt(value, spec: str = ".3f") -> str:
    return "—" if value is None else format(value, spec)


def _print(result, top: int) -> None:
    typer.echo(
        f"judge {result.judge}: F1 of {result.setting_b} − {result.setting_a}, paired by question"
        f" ({result.resamples} resamples, seed {result.seed})"
    )
    typer.echo(
        f"{'group':<6} {'n':>4} {'F1 a':>6} {'F1 b':>6} {'diff':>7} {'95% CI':>17}"
        f" {'W/T/L':>10} {'sign p':>7} {'perm p':>7}"
    )
    for r in result.results:
        ci = f"[{_fmt(r.ci_low)},{_fmt(r.ci_high)}]"
        typer.echo(
            f"{r.group:<6} {r.n:>4} {_fmt(r.mean_a):>6} {_fmt(r.mean_b):>6} {_fmt(r.mean_diff):>7}"
            f" {ci:>17} {f'{r.wins}/{r.ties}/{r.losses}':>10} {_fmt(r.sign_p, '.4f'):>7}"
            f" {_fmt(r.permutation_p, '.4f'):>7}" + (" (exact)" if r.permutation_exact else "")
        )
    if result.results[0].n:
        typer.echo("largest differences (b − a):")
        for row in result.top_differences(top).itertuples():
            change = f"{row.a:.3f} → {row.b:.3f} ({row.diff:+.3f})"
            typer.echo(f"  {row.question_id:<28} {row.qtype:<4} {change}")
