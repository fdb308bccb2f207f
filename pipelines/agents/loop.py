"""The agent loop (LF-VideoQA §4.3): a model turn, the tools it called, their results, again,
until it answers or the step limit ends the question.

All open questions take a turn together: each turn is one gateway batch (cached, budgeted,
recorded), so a rerun replays every turn offline and a killed run resumes where its cache
ends. The paper gives the tools, not the orchestrator's prompt or step limit; ours are
documented in docs/SETTINGS.md ("Agents") and recorded with the run (`AGENT_PROMPT_VERSION`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Protocol

from pipelines.agents.tools import MAX_RESULT_CHARS, TOOLS, ToolError, call_tool
from pipelines.llm import Gateway, LLMRequest
from pipelines.llm.requests import LLMResult, Usage
from pipelines.llm.tool_calls import ToolCall, assistant_message, tool_message
from pipelines.settings import ANSWER_INSTRUCTION

AGENT_PROMPT_VERSION = "agent-v1"
DEFAULT_MAX_TURNS = 12

AGENT_INSTRUCTION = (
    f"{ANSWER_INSTRUCTION} You are not shown the film: search it with the tools first, then "
    "answer from what they returned. Times are seconds from the film's start. When you have "
    "enough, answer without calling a tool."
)
LAST_TURN = "This is your last step: answer the question now from what you found, without tools."


class TurnModel(Protocol):
    """What takes the turns: the gateway (`GatewayTurns`) or an offline policy
    (`pipelines.agents.offline`)."""

    stop_reason: str | None

    def stop(self, reason: str = "stopped") -> None: ...

    def answer_turns(self, conversations: list, requests: list[LLMRequest]) -> list[LLMResult]:
        """One result per request (a `ToolReply` when ok), in order."""
        ...


class GatewayTurns:
    """The model behind an endpoint: each turn is one gateway batch."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    @property
    def stop_reason(self) -> str | None:
        return self.gateway.stop_reason

    def stop(self, reason: str = "stopped") -> None:
        self.gateway.stop(reason)

    def answer_turns(self, conversations, requests: list[LLMRequest]) -> list[LLMResult]:
        return self.gateway.run(requests)


@dataclass
class Conversation:
    """One question's agent run: its messages so far and what it did.

    Attributes:
        question: the question row (question_id, film_id, text, title, ...).
        index: the film's tool index for the tier (`pipelines.agents.tools.index.FilmIndex`).
        outcome: None while open; `answered`, `step_limit` or `failed` once ended.
    """

    question: dict
    index: object
    messages: list[dict]
    steps: list[dict] = field(default_factory=list)
    turns: int = 0
    answer: str | None = None
    outcome: str | None = None
    failure: str | None = None
    tool_mode: str | None = None
    usage: Usage = field(default_factory=Usage)

    @property
    def question_id(self) -> str:
        return self.question["question_id"]


def start_conversation(question: dict, index, duration_s: float | None = None) -> Conversation:
    """A question's first messages: the instruction, then the film's name and length and the
    question (never its evidence, anchor or rubric)."""
    title = question.get("title") or question["film_id"]
    length = f", {duration_s / 60:.0f} minutes long" if duration_s else ""
    user = f"The film: {title}{length}.\n\nQuestion: {question['text']}"
    messages = [
        {"role": "system", "content": AGENT_INSTRUCTION},
        {"role": "user", "content": user},
    ]
    return Conversation(question, index, messages)


def tool_specs() -> list[dict]:
    """Every registered tool as an OpenAI `tools` entry (one shared list: requests of a run
    carry the same object)."""
    return [tool.openai_spec() for tool in TOOLS.values()]


def turn_request(conversation: Conversation, turn: int, last: bool, tools, params) -> LLMRequest:
    """The gateway request of one turn (the last one asks for the answer now)."""
    messages = conversation.messages
    if last:
        messages = [*messages, {"role": "user", "content": LAST_TURN}]
    return LLMRequest(
        f"{conversation.question_id}#turn{turn}", messages, params=params, tools=tools
    )


def take_turn(
    model: TurnModel, open_ones: list[Conversation], turn: int, max_turns: int, params: dict
) -> None:
    """One turn of every open conversation: one batch of requests, then each reply's calls."""
    tools = tool_specs()
    last = turn == max_turns - 1
    requests = [turn_request(c, turn, last, tools, params) for c in open_ones]
    for conversation, result in zip(open_ones, model.answer_turns(open_ones, requests)):
        if result.status == "skipped":  # budget spent or stopped: resumed by a rerun
            continue
        conversation.turns += 1
        conversation.usage.add(result.usage)
        conversation.tool_mode = result.mode
        if not result.ok:
            conversation.outcome = "failed"
            conversation.failure = f"model turn {turn} failed: {result.reason or result.error}"
            continue
        reply = result.parsed
        if reply.calls:
            _run_calls(conversation, turn, reply)
            if last:
                conversation.outcome = "step_limit"
                conversation.failure = f"no answer after {max_turns} turns (the step limit)"
        elif reply.content.strip():
            conversation.answer = reply.content.strip()
            conversation.outcome = "answered"
        else:
            conversation.outcome = "failed"
            conversation.failure = f"model turn {turn} replied with neither tools nor an answer"


def _run_calls(conversation: Conversation, turn: int, reply) -> None:
    conversation.messages.append(assistant_message(reply))
    for position, call in enumerate(reply.calls):
        text, intervals, error = run_tool(conversation.index, call)
        conversation.messages.append(tool_message(call, text))
        conversation.steps.append(
            {
                "question_id": conversation.question_id,
                "turn": turn,
                "call_index": position,
                "tool": call.name or "(no name)",
                "arguments": _arguments_value(call.arguments),
                "intervals": intervals,
                "result_chars": len(text),
                "result_text": text[:MAX_RESULT_CHARS],
                "error": error,
            }
        )


def run_tool(index, call: ToolCall) -> tuple[str, list[tuple[float, float]], str | None]:
    """(text given back, intervals touched, error) of one call; a bad call is told to the
    model as an error and recorded, never raised."""
    try:
        result = call_tool(index, call.name, call.arguments)
    except ToolError as exc:
        return f"error: {exc}", [], str(exc)
    except Exception as exc:  # noqa: BLE001 - a failing tool ends the call, not the run
        message = f"tool failed: {type(exc).__name__}: {exc}"
        return f"error: {message}", [], message
    return result.text, [tuple(span) for span in result.intervals], None


def _arguments_value(arguments: str):
    """The arguments as JSON the store keeps: the parsed object, or the text a model wrote
    that is not JSON (kept as a string so the trail shows it)."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments
