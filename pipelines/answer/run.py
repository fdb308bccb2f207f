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

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any

from data_access.queries import answer_inputs, task_questions
from data_access.store import Store
from data_access.writes import answering
from data_access.writes.llm_log import lookup_cache
from data_access.writes.runs import RunSpec, end_run, start_run
from pipelines.llm import Gateway, LLMRequest, load_config
from pipelines.llm.requests import TRUNCATED
from pipelines.settings import (
    InputBuilder,
    SettingOptions,
    SettingUnavailable,
    get_setting,
    openai_messages,
)
from pipelines.settings.budget import CUT_RULE

PROMPT_VERSION = "answer-v1"
STEP = "answer"
WHERE_KEYS = task_questions.OPEN_ENDED_FILTERS


@dataclass
class AnswerOptions:
    """What to answer, in which setting, with which model (JSON-serialisable job params; never
    a key).

    Attributes:
        setting: a registered setting's source (`pipelines.settings.setting_names()`).
        setting_name: the setting id to write under (default: derived from model and setting).
        where: question filters (`task_questions.OPEN_ENDED_FILTERS` columns -> values).
        limit: at most this many questions (the first by film and id).
        context: the setting's build options (`SettingOptions` fields).
        llm: gateway overrides (base_url, model, concurrency, budgets); no api_key.
        tier: the agent setting's tier (regular, fast, oracle; §4.3).
        backend: the agent setting's orchestrator: `openai` (the model behind the gateway) or
            `offline` (`pipelines.agents.offline`, a named model-free baseline).
        max_turns: the agent setting's step limit (model turns per question).
    """

    setting: str = "question-only"
    setting_name: str | None = None
    where: dict[str, list[str]] = field(default_factory=dict)
    limit: int | None = None
    context: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    batch_size: int = 8
    temperature: float = 0.0
    executor: str = "local"  # local | ray (pipelines.scale): where the calls are made
    ray_address: str | None = None
    tier: str = "regular"
    max_turns: int = 12
    backend: str = "openai"

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> AnswerOptions:
        return cls(**params)

    def params(self) -> dict[str, Any]:
        return asdict(self)

    def config(self):
        return load_config(self.llm)

    def setting_options(self) -> SettingOptions:
        return SettingOptions(**self.context)

    def answerer(self) -> str:
        """Who answers: the model's name, or the offline agent's."""
        if self.backend == "offline":
            from pipelines.agents.offline import OFFLINE_AGENT

            return OFFLINE_AGENT
        return model_label(self.config().model)

    def answer_tokens(self) -> int:
        """The reply's max_tokens."""
        return self.setting_options().answer_tokens

    def setting_row(self, run_id: str) -> dict:
        """The `settings` row the answers are written under."""
        model = self.answerer()
        setting = get_setting(self.setting)
        options = self.setting_options()
        captioner = options.captioner if "captions" in setting.needs else None
        if setting.agent:
            default = f"storyscope:{model}:agent-{self.tier}:turns{self.max_turns}"
            offline = " (offline baseline, no model)" if self.backend == "offline" else ""
            label = f"{model}{offline} · agent, {self.tier} tier"
        else:
            default = default_setting_id(model, setting.source, options)
            label = f"{model} · {setting.label}"
        return {
            "setting_id": self.setting_name or default,
            "source": setting.source,
            "answerer": model,
            "captioner": captioner,
            "tier": self.tier if setting.agent else None,
            "label": label,
            "run_id": run_id,
        }


def model_label(model: str) -> str:
    """A model's name as settings show it: a local file path is shortened to its file name, so
    no setting id carries a machine's directories."""
    return PurePath(model).name if "/" in model and model.startswith(("/", "~", ".")) else model


def default_setting_id(model: str, source: str, options: SettingOptions) -> str:
    """`storyscope:<model>:<setting>`, with the window (and frame rate) when the film is cut to
    them, so answers built under different budgets never share a setting."""
    parts = ["storyscope", model, source]
    if source != "question-only":
        parts.append(f"ctx{options.context_tokens}")
    if "video" in source and options.fps != 0.2:
        parts.append(f"fps{options.fps:g}")
    return ":".join(parts)


def answer_id(setting_id: str, question_id: str) -> str:
    """A stable answer id per (setting, question)."""
    return "ans-" + hashlib.sha256(f"{setting_id}\x00{question_id}".encode()).hexdigest()[:20]


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
        from pipelines.agents.run import agent_dry_run  # (imports this module)

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
        "unavailable": _reasons(plan.unavailable),
    }


def _reasons(unavailable: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for reason in unavailable.values():
        counts[reason] = counts.get(reason, 0) + 1
    return counts


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
        from pipelines.agents.run import answer_with_agent  # (imports this module)

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
        "unavailable": _reasons(plan.unavailable),
        "stopped": stopped,
        "stop_reason": gateway.stop_reason,
    }
