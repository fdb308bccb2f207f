"""Demo step 60: question generation on the sample film with the offline `template` backend,
and the automatic checks on the paper's released questions.

The generation run (context-sets, discard counts, stage outputs, checks, near-duplicates, UMAP,
Self-BLEU, opening frames) is what the Question Lab page shows. It needs the sample film's
belief records (steps 30 and 45); without them it skips with a message. Reruns skip what the
store already has.
"""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from pipelines.qgen.check_run import run_check_questions
from pipelines.qgen.generate import generate

SAMPLE_FILM_ID = "the-keepers-ledger"
SAMPLE_QUESTIONS = 40


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Generate on the sample film and check the paper questions, unless already done.

    Args:
        store: the demo store.
        data_dir: unused; the sample film ships with the repository.
        echo: progress printer.
    """
    _check_paper_questions(store, echo)
    has_beliefs = store.scalar("SELECT count(*) FROM current_beliefs WHERE film_id = ?",
                               [SAMPLE_FILM_ID])
    if not has_beliefs:
        echo(f"  {SAMPLE_FILM_ID}: no belief records (steps 30 and 45); generation skipped")
        return
    if store.scalar("SELECT count(*) FROM runs WHERE step = 'qgen.generate' AND source = ?",
                    [SAMPLE_FILM_ID]):
        echo(f"  {SAMPLE_FILM_ID}: generation run already in the store, skipped")
        return
    report = generate(store, SAMPLE_FILM_ID, n=SAMPLE_QUESTIONS, backend="template")
    echo(f"  {SAMPLE_FILM_ID}: {report.discards['total']} context-sets, {report.discards['kept']}"
         f" kept, {report.sampled} sampled -> {report.statuses} (backend template)")


def _check_paper_questions(store: Store, echo) -> None:
    if store.scalar("SELECT count(*) FROM runs WHERE step = 'qgen.check'"):
        return
    if not store.scalar("SELECT count(*) FROM questions WHERE source = 'paper'"):
        echo("  no paper questions in the store; check run skipped")
        return
    run_id, checks = run_check_questions(store, {"source": ["paper"]})
    passed = sum(item.result.passed for item in checks)
    echo(f"  paper questions: {passed}/{len(checks)} pass the automatic checks (run {run_id})")
