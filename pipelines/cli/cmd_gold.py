"""`storyscope gold-eval`: offline backends scored against a film's hand-made gold."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store


@app.command("gold-eval")
def gold_eval_command(
    film: Annotated[
        str, typer.Option(help="Film with a gold annotation.", envvar="STORYSCOPE_FILM")
    ] = "the-keepers-ledger",
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Rules and asymmetry beliefs, template questions and the lexical judge, against the gold.

    The result is also stored as a `gold.eval` run, which the pages show beside each backend.
    """
    from data_access.tables.gold_evals import record_gold_eval
    from pipelines.goldeval import GoldEvalError, gold_eval, summary

    opened = open_store(store, mode="write")
    try:
        detail = gold_eval(opened, film)
    except GoldEvalError as exc:
        raise fail(str(exc)) from None
    record_gold_eval(opened, film, summary(detail))
    if as_json:
        typer.echo(json.dumps(summary(detail)))
        return
    for line in report_lines(detail):
        typer.echo(line)


def _f(value) -> str:
    return "—" if value is None else f"{value:.2f}"


def report_lines(detail: dict) -> list[str]:
    """The human-readable report: one block per comparison (one belief line per backend)."""
    from pipelines.goldeval import missing_backends

    q, j = detail["questions"], detail["judge"]
    ref = q["gold_reference"]
    lines = [
        f"beliefs: {b['backend']} backend vs gold: precision {_f(b['precision'])}, recall"
        f" {_f(b['recall'])}, false-belief recall {_f(b['false_belief_recall'])}, revision"
        f" recall {_f(b['revision_recall'])}  ({b['matched']} matched of {b['n_backend']}"
        f" backend / {b['n_gold']} gold beliefs; same holder, overlapping scenes, MiniLM"
        f" cosine ≥ {b['match_cosine']})"
        for b in detail.get("belief_backends", {}).values() or [detail["beliefs"]]
    ]
    lines += [f"beliefs: not scored yet, run `{c}`" for c in missing_backends(detail)]
    lines += [
        f"questions: {q['backend']} backend: checks pass {_f(q['checks_pass_rate'])},"
        f" near-duplicates {_f(q['near_duplicate_rate'])}, Self-BLEU-2 {_f(q['self_bleu2'])}"
        f" ({q['n']} questions); gold questions: {_f(ref['checks_pass_rate'])},"
        f" {_f(ref['near_duplicate_rate'])}, {_f(ref['self_bleu2'])} ({ref['n']})",
        f"judge: {j['backend']} vs gold verdicts: κ {_f(j['kappa'])}, accuracy"
        f" {_f(j['accuracy'])} over {j['n_judged']} of {j['n_claims']} claims",
    ]
    for gold, row in sorted(j["confusion"].items()):
        cells = ", ".join(f"{label} {n}" for label, n in sorted(row.items()))
        lines.append(f"  gold {gold}: {cells}")
    return lines
