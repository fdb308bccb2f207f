"""`storyscope answer --setting agent --tier T`: the agent loop over the selected questions,
its answers written as ordinary answers and its tool calls as their evidence trail (m1100).

Conversations that end in a turn are written in one transaction after that turn (answers,
trail, outcome), so a killed run loses only open conversations, whose turns the gateway's
cache replays offline on the rerun.
"""

from __future__ import annotations

from typing import Any

from data_access.queries import agent_runs, task_questions
from data_access.store import Store
from data_access.tables import answering
from data_access.tables.agent_steps import write_trail
from data_access.tables.llm_log import lookup_cache
from data_access.tables.runs import RunSpec, end_run, start_run
from pipelines.agents.loop import (
    AGENT_PROMPT_VERSION,
    Conversation,
    GatewayTurns,
    start_conversation,
    take_turn,
    tool_specs,
    turn_request,
)
from pipelines.agents.offline import OFFLINE_AGENT, OfflineAgentTurns
from pipelines.agents.tools import TIERS, ToolError, warm_index
from pipelines.agents.tools.index import FilmIndex
from pipelines.answer.options import STEP, AnswerOptions, answer_id, reason_counts
from pipelines.llm import Gateway, LLMRequest
from pipelines.settings import SettingUnavailable
from pipelines.settings.budget import estimate_tokens

# A tool that asks the model (vqa, browse_clip on frames) gets this much reply.
TOOL_REPLY_TOKENS = 256


def agent_run_spec(options: AnswerOptions, config) -> RunSpec:
    """The agent run's provenance: model, prompt version, tier, step limit, gateway settings."""
    if options.backend == "offline":
        return RunSpec(
            STEP,
            backend="offline",
            model=OFFLINE_AGENT,
            prompt_version=OFFLINE_AGENT,
            params=options.params(),
            source=f"agent:{options.tier}",
        )
    return RunSpec(
        STEP,
        backend="openai",
        model=config.model,
        prompt_version=AGENT_PROMPT_VERSION,
        params={**options.params(), "llm": config.public_dict()},
        source=f"agent:{options.tier}",
    )


def model_ask(store: Store, config, run_id: str):
    """The `ask` hook of the tools that need the model: one cached gateway request."""

    def ask(messages: list[dict]) -> str:
        request = LLMRequest(
            "tool-ask",
            messages,
            params={"temperature": 0.0, "max_tokens": TOOL_REPLY_TOKENS},
        )
        [result] = Gateway(store, config, run_id).run([request])
        if not result.ok:
            raise ToolError(f"the model behind the tool did not answer ({result.reason})")
        return str(result.parsed).strip()

    return ask


def _conversations(store, options, run_id, ask, warm: bool) -> tuple[list, dict, set]:
    row = options.setting_row("plan")
    questions = task_questions.open_ended_questions(store, options.where, options.limit)
    settled = agent_runs.settled_questions(store, row["setting_id"])
    indexes: dict[str, Any] = {}
    conversations, unavailable = [], {}
    for question in questions.to_dict("records"):
        if question["question_id"] in settled:
            continue
        film_id = question["film_id"]
        if film_id not in indexes:
            try:
                indexes[film_id] = FilmIndex.load(store, film_id, options.tier, ask=ask)
                if warm:  # rankers built now, not inside the first turn that searches
                    warm_index(indexes[film_id])
            except (ToolError, SettingUnavailable) as exc:
                indexes[film_id] = exc
        index = indexes[film_id]
        if isinstance(index, Exception):
            unavailable[question["question_id"]] = str(index)
            continue
        conversations.append(start_conversation(question, index, index.duration_s))
    return conversations, unavailable, settled


def _ended_rows(ended: list[Conversation], setting_id: str, run_id: str, tier: str):
    answers, steps, outcomes = [], [], []
    for conversation in ended:
        ident = None
        if conversation.outcome == "answered":
            ident = answer_id(setting_id, conversation.question_id)
            answers.append(
                {
                    "answer_id": ident,
                    "question_id": conversation.question_id,
                    "setting_id": setting_id,
                    "text": conversation.answer,
                    "run_id": run_id,
                }
            )
        steps += [dict(step, run_id=run_id, setting_id=setting_id) for step in conversation.steps]
        outcomes.append(
            {
                "run_id": run_id,
                "setting_id": setting_id,
                "question_id": conversation.question_id,
                "answer_id": ident,
                "tier": tier,
                "outcome": conversation.outcome,
                "turns": conversation.turns,
                "tool_calls": len(conversation.steps),
                "prompt_tokens": conversation.usage.prompt_tokens,
                "completion_tokens": conversation.usage.completion_tokens,
                "tool_mode": _mode_name(conversation.tool_mode),
                "failure": conversation.failure,
            }
        )
    return answers, steps, outcomes


def _mode_name(mode: str | None) -> str | None:
    return {"tools": "native", "tools-prompt": "prompt", OFFLINE_AGENT: "offline"}.get(
        mode or "", mode
    )


def answer_with_agent(store: Store, options: AnswerOptions, ctx=None) -> dict[str, Any]:
    """Run the agent on the selected questions; with a job context, report progress.

    Returns:
        run_id, setting_id, questions, answered, failed, step_limit, truncated (0), skipped
        (settled before), unavailable (reason -> count), stopped, stop_reason.

    Raises:
        ValueError: an unknown tier.
    """
    if options.tier not in TIERS:
        raise ValueError(f"unknown agent tier {options.tier!r}; use one of {', '.join(TIERS)}")
    config = options.config()
    run_id = (
        ctx.run_id
        if ctx is not None and ctx.run_id
        else start_run(store, agent_run_spec(options, config))
    )
    row = options.setting_row(run_id)
    with store.transaction() as cursor:
        answering.ensure_setting(cursor, row)
    offline = options.backend == "offline"
    ask = None if offline else model_ask(store, config, run_id)
    conversations, unavailable, settled = _conversations(store, options, run_id, ask, warm=True)
    if ctx is not None:
        ctx.attach_run(run_id, len(conversations))
    model = (
        OfflineAgentTurns()
        if offline
        else GatewayTurns(Gateway(store, config, run_id, batch_size=options.batch_size))
    )
    params = {"temperature": options.temperature, "max_tokens": options.answer_tokens()}
    counts = {"answered": 0, "failed": 0, "step_limit": 0}
    for turn in range(options.max_turns):
        open_ones = [c for c in conversations if c.outcome is None]
        if not open_ones or model.stop_reason is not None:
            break
        take_turn(model, open_ones, turn, options.max_turns, params)
        ended = [c for c in open_ones if c.outcome is not None]
        answers, steps, outcomes = _ended_rows(ended, row["setting_id"], run_id, options.tier)
        with store.transaction() as cursor:
            answering.write_answers(cursor, answers, [])
            write_trail(cursor, steps, outcomes)
            for conversation in ended:
                counts[conversation.outcome] += 1
            if ctx is not None:
                ctx.progress(cursor, counts["answered"], counts["failed"] + counts["step_limit"])
        if ctx is not None and ctx.should_stop():
            model.stop("stopped")
    stopped = model.stop_reason is not None
    end_run(
        store,
        run_id,
        "stopped" if stopped else "finished",
        n_items=counts["answered"],
        n_failed=counts["failed"] + counts["step_limit"],
    )
    return {
        "run_id": run_id,
        "setting_id": row["setting_id"],
        "questions": len(conversations) + len(unavailable) + len(settled),
        "answered": counts["answered"],
        "failed": counts["failed"],
        "step_limit": counts["step_limit"],
        "truncated": 0,
        "skipped": len(settled),
        "unavailable": reason_counts(unavailable),
        "stopped": stopped,
        "stop_reason": model.stop_reason,
    }


def agent_dry_run(store: Store, options: AnswerOptions) -> dict[str, Any]:
    """What an agent run would do, writing nothing: questions, the first turn's estimated
    tokens and cache hits, and the most calls the step limit allows (later turns depend on
    the model's replies, so their size is not known before)."""
    config = options.config()
    conversations, unavailable, settled = _conversations(
        store, options, "dry-run", ask=None, warm=False
    )
    params = {"temperature": options.temperature, "max_tokens": options.answer_tokens()}
    tools = tool_specs()
    firsts = [turn_request(c, 0, options.max_turns == 1, tools, params) for c in conversations]
    if options.backend == "offline":
        keys, hits = [], {}
        firsts = []  # no model call at all
    else:
        gateway = Gateway(store, config, run_id="dry-run")
        keys = [gateway.key_of(r) for r in firsts]
        hits = lookup_cache(store, keys)
    first_tokens = sum(estimate_tokens(str(r.messages) + str(tools)) for r in firsts)
    return {
        "setting_id": options.setting_row("plan")["setting_id"],
        "setting": f"agent ({options.tier} tier)",
        "model": options.answerer(),
        "questions": len(conversations) + len(unavailable) + len(settled),
        "already_answered": len(settled),
        "calls": len(firsts) - sum(k in hits for k in keys),
        "cache_hits": sum(k in hits for k in keys),
        "max_calls": len(firsts) * options.max_turns,
        "est_prompt_tokens": first_tokens,
        "est_completion_tokens_max": len(firsts) * options.max_turns * options.answer_tokens(),
        "est_cost_usd": config.cost(first_tokens, len(firsts) * options.answer_tokens()),
        "cut": 0,
        "unavailable": reason_counts(unavailable),
    }
