"""Demo step 70: the offline `lexical` judge and the Eq. 1 metrics on the demo store's answers.

Grades every model answer the store holds (the paper sample's 12 answers from step 10, plus
whatever other steps added) with the `lexical` judge — an offline method, labelled `lexical`
everywhere it is shown, never passed off as the paper's LLM judge — then runs the gold
self-check and prints the Table 3 layout. Reruns of the demo skip answers already judged.
"""

from __future__ import annotations

from pathlib import Path

from data_access.queries.verdict_counts import judges_with_answer_verdicts, verdict_counts
from data_access.store import Store
from pipelines.judge import JudgeOptions, load_slice, run_judge
from pipelines.metrics import metrics_table


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Judge unjudged answers with `lexical`, self-check gold answers, print metrics.

    Args:
        store: the demo store.
        data_dir: unused (works on what earlier steps imported).
        echo: progress printer.
    """
    options = JudgeOptions(backend="lexical")
    part = load_slice(store, options)
    if part.answers.empty:
        echo("  no answers with rubrics in the store; nothing to judge")
        return
    judged = set()
    if "lexical" in judges_with_answer_verdicts(store):
        judged = set(verdict_counts(store, "lexical").answer_id)
    todo = sorted(set(part.answers.answer_id) - judged)
    if todo:
        options.where = {
            "question_ids": sorted(set(part.answers[part.answers.answer_id.isin(todo)].question_id))
        }
        summary = run_judge(store, options)
        echo(f"  lexical judge: {summary['done']} answers graded (run {summary['run_id']})")
        gold = run_judge(store, JudgeOptions(backend="lexical", gold=True))
        echo(
            f"  gold self-check: {gold['done']} reference answers, "
            f"{len(gold['gold_failures'])} omit or contradict a core claim"
        )
    else:
        echo("  lexical judge: every answer already graded, skipped")
    for row in metrics_table(store, "lexical").rows:
        measures = " ".join(
            f"{label} {_three(row[key])}"
            for label, key in (("Rec", "recall"), ("Prec", "precision"), ("F1", "f1"))
        )
        contra = _three(row["contradiction"])
        echo(f"  {row['setting']}: n={row['n']} {measures} Contra {contra}  (judge: lexical)")


def _three(value) -> str:
    """A mean to three places, or "—" where it is undefined (no question with a core claim,
    or no answer committing to a claim)."""
    return "—" if value is None else f"{value:.3f}"
