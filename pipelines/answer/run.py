"""Answer LF-VideoQA questions in a setting through the gateway (§4, Table 3).

    from pipelines.answer import AnswerOptions, answer_questions
    summary = answer_questions(store, AnswerOptions(setting="subtitles", llm={"model": "m"}))

Every question's input is built by the setting's one definition (`pipelines.settings`), sent
as a free-text request (text and, for the video settings, image parts), and the reply written
as an ordinary answer of the setting, with a record of what the model was given. Batches are
written in the transaction that records their gateway calls, so a killed run loses nothing: a
rerun skips the questions the setting already answered and replays cached replies offline.
Failed replies stay in the run's call log with their raw text and reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from data_access.queries import answer_inputs, task_questions
from data_access.store import Store
from data_access.tables import answering
from data_access.tables.llm_log import lookup_cache
from data_access.tables.runs import RunSpec, end_run, start_run
from pipelines.agents.run import agent_dry_run, answer_with_agent
from pipelines.answer.options import (
    STEP,
    AnswerOptions,
    answer_id,
    reason_counts,
)
from pipelines.llm import Gateway, LLMRequest
from pipelines.llm.requests import TRUNCATED
from pipelines.settings import (
    InputBuilder,
    SettingUnavailable,
    get_setting,
    openai_messages,
)
from pipelines.settings.budget import CUT_RULE

PROMPT_VERSION = "answer-v1"


@dataclass
class _Plan:
    setting_id: str
    questions: list[dict]
    inputs: dict[str, Any]  # question_id -> GivenInput
    unavailable: dict[str, str]  # question_id -> reason
    already: set[str]


def _plan(store: Store, options: AnswerOptions, with_answered: bool = False) -> _Plan:
    """The questions and their inputs; questions the setting answered already are left out
    unless `with_answered` (the executor path keys its units by the whole selection)."""
    setting = get_setting(options.setting)
    row = options.setting_row("plan")
    rows = task_questions.open_ended_questions(store, options.where, options.limit)
    already = answer_inputs.answered_questions(store, row["setting_id"])
    builder = InputBuilder(store, setting, options.setting_options())
    inputs, unavailable = {}, {}
    questions = rows.to_dict("records")
    for question in questions:
        if question["question_id"] in already and not with_answered:
            continue
        try:
            inputs[question["question_id"]] = builder.build(question)
        except SettingUnavailable as exc:
            unavailable[question["question_id"]] = str(exc)
    return _Plan(row["setting_id"], questions, inputs, unavailable, already)


def _request(given, options: AnswerOptions) -> LLMRequest:
    params = {
        "temperature": options.temperature,
        "max_tokens": options.setting_options().answer_tokens,
    }
    return LLMRequest(item_id=given.question_id, messages=openai_messages(given), params=params)


def dry_run(store: Store, options: AnswerOptions) -> dict[str, Any]:
    """What a run would do — questions, estimated tokens and calls, cache hits — writing nothing."""
    if get_setting(options.setting).agent:
        return agent_dry_run(store, options)
    plan = _plan(store, options)
    config = options.config()
    requests = [_request(g, options) for g in plan.inputs.values()]
    gateway = Gateway(store, config, run_id="dry-run")
    keys = [gateway.key_of(r) for r in requests]
    hits = lookup_cache(store, keys)
    prompt = sum(g.record["est_tokens"] for g in plan.inputs.values())
    completion = len(requests) * options.setting_options().answer_tokens
    return {
        "setting_id": plan.setting_id,
        "setting": options.setting,
        "model": config.model,
        "questions": len(plan.questions),
        "already_answered": len(plan.already),
        "calls": len(requests) - sum(k in hits for k in keys),
        "cache_hits": sum(k in hits for k in keys),
        "est_prompt_tokens": prompt,
        "est_completion_tokens_max": completion,
        "est_cost_usd": config.cost(prompt, completion),
        "cut": sum(g.record["cut_rule"] is not None for g in plan.inputs.values()),
        "unavailable": reason_counts(plan.unavailable),
    }


def run_spec(options: AnswerOptions, config) -> RunSpec:
    """The answer run's provenance: model, prompt, the setting's options and the cut rule."""
    return RunSpec(
        STEP,
        backend="openai",
        model=config.model,
        prompt_version=PROMPT_VERSION,
        params={**options.params(), "llm": config.public_dict(), "cut_rule": CUT_RULE},
        source=options.setting,
    )


def result_rows(plan: _Plan, results, run_id: str) -> tuple[list[dict], list[dict]]:
    """The `answers` rows of the ok results and the `answer_inputs` row of every result (a
    failed one with no answer id), for one batch."""
    answers, inputs = [], []
    for result in results:
        given = plan.inputs[result.item_id]
        record = dict(given.record, run_id=run_id, setting_id=plan.setting_id, answer_id=None)
        if result.ok:
            record["answer_id"] = answer_id(plan.setting_id, result.item_id)
            answers.append(
                {
                    "answer_id": record["answer_id"],
                    "question_id": result.item_id,
                    "setting_id": plan.setting_id,
                    "text": str(result.parsed).strip(),
                    "run_id": run_id,
                }
            )
        inputs.append(record)
    return answers, inputs


def answer_questions(store: Store, options: AnswerOptions, ctx=None) -> dict[str, Any]:
    """Answer the selected questions in the setting; with a job context, report progress.

    Returns:
        run_id, setting_id, questions, answered, failed, truncated (answers cut at the reply's
        token limit, kept as given), skipped (already answered),
        unavailable (reason -> count), stopped; the agent setting adds its outcomes.
    """
    if get_setting(options.setting).agent:
        return answer_with_agent(store, options, ctx)
    plan = _plan(store, options)
    config = options.config()
    spec = run_spec(options, config)
    run_id = ctx.run_id if ctx is not None and ctx.run_id else start_run(store, spec)
    row = options.setting_row(run_id)
    with store.transaction() as cursor:
        answering.ensure_setting(cursor, row)
    if ctx is not None:
        ctx.attach_run(run_id, len(plan.inputs))
    counts = {"answered": 0, "failed": 0, "truncated": 0}
    gateway = Gateway(store, config, run_id, batch_size=options.batch_size)

    def on_batch(cursor, results) -> None:
        answers, inputs = result_rows(plan, results, run_id)
        answering.write_answers(cursor, answers, inputs)
        counts["answered"] += len(answers)
        counts["failed"] += sum(r.status == "failed" for r in results)
        counts["truncated"] += sum(r.ok and r.reason == TRUNCATED for r in results)
        if ctx is not None:
            ctx.progress(cursor, counts["answered"], counts["failed"])
            if ctx.should_stop():
                gateway.stop("stopped")

    gateway.run([_request(g, options) for g in plan.inputs.values()], on_batch=on_batch)
    stopped = gateway.stop_reason is not None
    end_run(
        store,
        run_id,
        "stopped" if stopped else "finished",
        n_items=counts["answered"],
        n_failed=counts["failed"],
    )
    return {
        "run_id": run_id,
        "setting_id": plan.setting_id,
        "questions": len(plan.questions),
        "answered": counts["answered"],
        "failed": counts["failed"],
        "truncated": counts["truncated"],
        "skipped": len(plan.already),
        "unavailable": reason_counts(plan.unavailable),
        "stopped": stopped,
        "stop_reason": gateway.stop_reason,
    }
