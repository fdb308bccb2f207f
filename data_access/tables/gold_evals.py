"""Gold-eval results (`storyscope gold-eval`), each stored as a finished run of its own step
whose params hold the result; the pages read the newest (`queries.gold_eval_inputs`)."""

from __future__ import annotations

import json

from data_access.store import Store
from data_access.tables.runs import RunSpec, finish_run, insert_run

EVAL_STEP = "gold.eval"


def record_gold_eval(store: Store, film_id: str, result: dict) -> str:
    """Store one gold-eval result as a finished run (params = the result), for the pages."""
    spec = RunSpec(
        EVAL_STEP,
        backend="gold",
        source=film_id,
        params=result,
        note="offline backends scored against the hand-made gold annotation",
    )
    with store.transaction() as cursor:
        run_id = insert_run(cursor, spec)
        finish_run(cursor, run_id, n_items=len(json.dumps(result)), n_failed=0)
    return run_id
