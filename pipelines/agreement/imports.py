"""Write imported judge labels: one run per (dataset, judge), all in the caller's transaction."""

from __future__ import annotations

from data_access.tables import judging
from data_access.tables.runs import RunSpec, finish_run, insert_run

HUMAN = "human"


def write_judge_labels(
    cursor,
    dataset: str,
    judge_id: str,
    kind: str,
    source: str,
    rows: list[tuple[str, str, str, str | None]],
    note: str | None = None,
) -> str:
    """Record one judge's labels of a dataset under a new finished import run.

    Args:
        rows: (item group id, item id, verdict, rationale), stored as (answer_id, claim_id, ...).
    """
    spec = RunSpec(
        f"import.{dataset.split('-')[0]}",
        backend="import",
        source=source,
        params={"dataset": dataset, "judge": judge_id},
        note=note,
    )
    run_id = insert_run(cursor, spec, status="finished")
    finish_run(cursor, run_id, n_items=len(rows))
    backend = {"human": "human", "lexical": "lexical"}.get(kind, "recorded")
    judging.ensure_judge(
        cursor, judge_id, kind, backend, None if kind == "human" else judge_id, None, run_id
    )
    judging.write_verdicts(cursor, run_id, judge_id, rows)
    return run_id
