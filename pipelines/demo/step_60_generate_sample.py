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
from data_access.tables.belief_records import current_belief_count
from data_access.tables.qgen_records import paper_question_count
from data_access.tables.runs import count_runs
from pipelines.qgen.check_run import run_check_questions
from pipelines.qgen.generate import GenerateOptions, generate

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
    if not current_belief_count(store, SAMPLE_FILM_ID):
        echo(f"  {SAMPLE_FILM_ID}: no belief records (steps 30 and 45); generation skipped")
        return
    if count_runs(store, "qgen.generate", SAMPLE_FILM_ID):
        echo(f"  {SAMPLE_FILM_ID}: generation run already in the store, skipped")
        return
    report = generate(
        store, GenerateOptions(SAMPLE_FILM_ID, n=SAMPLE_QUESTIONS, backend="template")
    )
    echo(
        f"  {SAMPLE_FILM_ID}: {report.discards['total']} context-sets, {report.discards['kept']}"
        f" kept, {report.sampled} sampled -> {report.statuses} (backend template)"
    )


def _check_paper_questions(store: Store, echo) -> None:
    if count_runs(store, "qgen.check"):
        return
    if not paper_question_count(store):
        echo("  no paper questions in the store; check run skipped")
        return
    run_id, checks = run_check_questions(store, {"source": ["paper"]})
    passed = sum(item.result.passed for item in checks)
    echo(f"  paper questions: {passed}/{len(checks)} pass the automatic checks (run {run_id})")
