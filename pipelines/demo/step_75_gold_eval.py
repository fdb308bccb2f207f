"""Demo step 75: score the offline backends against the sample film's gold.

Runs `storyscope gold-eval` on the showcase film once the rules and asymmetry beliefs (step 45,
both scored side by side), the gold
(step 46), the template questions (step 60) and the lexical judge (step 70) are in the store,
and stores the result as a `gold.eval` run, which Belief timelines, Question Lab and Verdicts
show beside each backend's output. Skips with a message when a part is missing; reruns skip.
"""

from __future__ import annotations

from pathlib import Path

from data_access.queries.gold_eval_inputs import latest_gold_eval
from data_access.store import Store
from data_access.tables.gold_evals import record_gold_eval

SAMPLE_FILM_ID = "the-keepers-ledger"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Compute and store the gold comparison unless one is stored already."""
    from pipelines.cli.cmd_gold import report_lines
    from pipelines.goldeval import GoldEvalError, gold_eval, summary

    if latest_gold_eval(store, SAMPLE_FILM_ID) is not None:
        echo("  gold-eval: already stored, skipped")
        return
    try:
        detail = gold_eval(store, SAMPLE_FILM_ID)
    except GoldEvalError as exc:
        echo(f"  gold-eval skipped: {exc}")
        return
    record_gold_eval(store, SAMPLE_FILM_ID, summary(detail))
    for line in report_lines(detail):
        echo(f"  {line}")
