"""`storyscope answer --executor ray`: the questions in units on an executor (pipelines.scale,
docs/SCALE.md), the driver the store's single writer.

A run is one batch of units of `QUESTIONS_PER_UNIT` questions, named after the batch, so the
same command after a kill resumes it: units written are skipped, the rest replay what the
gateway's cache holds on the driver and send only the rest. The units are cut from the whole
selection (questions the setting answered already included, and never sent again), so a
resumed batch has the same units. Workers get the requests (never the key or the store) and
send back replies; the driver writes the answers and their input records, as the local path.
"""

from __future__ import annotations

from typing import Any

from data_access.store import Store
from data_access.tables import answering
from data_access.tables.runs import finish_run, insert_run, run_exists
from pipelines.answer.options import STEP, AnswerOptions
from pipelines.answer.run import _plan, _request, result_rows, run_spec
from pipelines.llm.requests import TRUNCATED
from pipelines.scale import Executor, Unfinished, Unit, run_batch
from pipelines.scale.budget import batch_budget, budget_state
from pipelines.scale.llm_worker import (
    driver_gateway,
    llm_unit,
    requests_unit,
    unit_unfinished,
    write_llm_unit,
)

QUESTIONS_PER_UNIT = 16


def answer_on_executor(
    store: Store, options: AnswerOptions, executor: Executor, progress=None
) -> dict[str, Any]:
    """Answer the selection on `executor`; returns the summary `answer_questions` returns,
    with the batch's counts (`units`, `units_done`, `units_failed`, `resumed_from`)."""
    plan = _plan(store, options, with_answered=True)
    config = options.config()
    ids = list(plan.inputs)
    blocks = [ids[i : i + QUESTIONS_PER_UNIT] for i in range(0, len(ids), QUESTIONS_PER_UNIT)]
    units = [Unit(f"{plan.setting_id}:{n:04d}", None) for n in range(len(blocks))]
    params = {**options.params(), "llm": config.public_dict(), "setting_id": plan.setting_id}
    params.pop("executor"), params.pop("ray_address")  # the same batch on any executor
    state: dict = {"replayed": {}, "answered": 0, "failed": 0, "truncated": 0}

    def on_start(batch_id: str) -> None:
        state["run_id"] = batch_id  # a resumed batch writes under the same run
        state["driver"] = driver_gateway(store, config, batch_id)
        new = not run_exists(store, batch_id)
        with store.transaction() as cursor:
            if new:
                insert_run(cursor, run_spec(options, config), batch_id)
            answering.ensure_setting(cursor, options.setting_row(batch_id))

    def prepare(unit: Unit) -> Unit:
        block = blocks[int(unit.key.rsplit(":", 1)[1])]
        todo = [q for q in block if q not in plan.already]
        requests = [_request(plan.inputs[q], options) for q in todo]
        # `budget`: the batch's, bound by the `with` below before any unit
        payload, replayed = requests_unit(store, config, state["run_id"], requests, budget)
        state["replayed"][unit.key] = replayed
        return Unit(unit.key, payload, len(payload["requests"]))

    def write(cursor, outcome):
        rows = outcome.value.llm
        write_llm_unit(cursor, state["run_id"], rows, state["driver"])
        results = [*state["replayed"].pop(outcome.key, []), *outcome.value.results]
        answers, inputs = result_rows(plan, [r for r in results if r.status != "skipped"],
                                      state["run_id"])  # fmt: skip
        answering.write_answers(cursor, answers, inputs)
        state["answered"] += len(answers)
        state["truncated"] += sum(r.ok and r.reason == TRUNCATED for r in results)
        failed = [r for r in results if r.status == "failed"]
        state["failed"] += len(failed)
        unfinished = unit_unfinished(rows)
        if unfinished is not None:
            return unfinished
        if failed:
            return Unfinished(
                f"{len(failed)} question(s) failed ({failed[0].reason or failed[0].error});"
                " the same command retries them"
            )
        return {"answered": len(answers)}

    def finish(cursor, kept: dict) -> None:
        finish_run(cursor, state["run_id"], n_items=sum(k["answered"] for k in kept.values()))

    with batch_budget(executor, config) as budget:
        batch = run_batch(
            store, executor, STEP, params, units, llm_unit, write, progress,
            prepare=prepare, on_start=on_start, finish=finish,
        )  # fmt: skip
        batch.budget = budget_state(budget)
    return {
        "run_id": state.get("run_id"),
        "setting_id": plan.setting_id,
        "questions": len(plan.questions),
        "answered": state["answered"],
        "failed": state["failed"],
        "truncated": state["truncated"],
        "skipped": len(plan.already),
        "unavailable": {
            r: list(plan.unavailable.values()).count(r) for r in set(plan.unavailable.values())
        },  # fmt: skip
        "stopped": batch.failed > 0,
        "stop_reason": None,
        "units": batch.total,
        "units_done": batch.done,
        "units_failed": batch.failed,
        "resumed_from": batch.resumed_from,
    }
