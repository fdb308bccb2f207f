"""An agent's evidence trail from an inspect_ai log: each tool call a sample's agent made, with its
turn, arguments, result and the film intervals it touched, and how the sample's loop ended.

Read only from logs of StoryScope's exported agent task (`storyscope export-task --setting
agent`): the task's metadata (`eval.metadata.storyscope`) says the setting, the tier and the
step limit, which the import files the answers under (settings.source `agent`, the tier).

Per sample (inspect_ai/log/_log.py `EvalSample`, model/_chat_message.py):

- a *turn* is one assistant message (0-based, in order); its `tool_calls` are the calls, in
  order (`call_index`), each with `function`, `arguments` and `parse_error` (arguments that were
  not JSON);
- a call's result is the `ChatMessageTool` with its `tool_call_id`: its text, and `error`
  (`parsing`: arguments that fail the tool's JSON schema, or a tool the model made up;
  anything else: the tool's own `ToolError`), recorded in the words of StoryScope's loop;
- a call's intervals are what the exported tool recorded when it ran, in the sample's store
  under the task's trail key (pipelines/export_task/agent.py), looked up by the call's tool and
  arguments; a call with no record there (it failed, or the log is not from a StoryScope tool)
  touched none, except that a call passing `start` and `end` touched that interval.
  Recorded rather than recomputed: the intervals are what the tools touched when the agent ran,
  with no index needed at import (and the film's store rows may have changed since).
"""

from __future__ import annotations

import json
import math
from typing import Any

from data_access.importers.errors import fail
from pipelines.agents.tools import MAX_RESULT_CHARS, ToolError, get_tool

AGENT_SETTING = "agent"
MAX_INTERVALS = 1000  # per call: more is not a tool's record


def agent_task(metadata: dict | None) -> dict | None:
    """The log's StoryScope agent task metadata (`setting`, `tier`, `step_limit`,
    `tools_digest`, ...), or None when the log is not of an exported agent task."""
    storyscope = (metadata or {}).get("storyscope")
    if isinstance(storyscope, dict) and storyscope.get("setting") == AGENT_SETTING:
        return storyscope
    return None


def agent_notes(task: dict) -> list[str]:
    """What the user should know about an agent log: its tier and step limit, and whether its
    tools were the importing StoryScope's."""
    notes = [
        f"an agent run ({task.get('tier')} tier, at most {task.get('step_limit')} model turns):"
        " its tool calls are imported as the answers' evidence trail"
    ]
    try:
        from pipelines.export_task.agent import tools_digest

        current = tools_digest()
    except ImportError:  # no tools installed: nothing to compare with
        return notes
    if task.get("tools_digest") and task["tools_digest"] != current:
        notes.append(
            f"the log's tools (digest {task['tools_digest']}) are not this StoryScope's"
            f" ({current}): its trail is what those tools touched"
        )
    return notes


def _call_key(function: str, arguments: Any) -> str:
    # the exported task's key for a call (templates/inspect_task.py.txt `_inspect_tool`)
    return json.dumps([function, arguments], sort_keys=True, ensure_ascii=False)


def _checked_intervals(value: Any, where: tuple[str, str, str]) -> list[list[float]]:
    """A recorded interval list, checked: at most `MAX_INTERVALS` pairs of finite seconds,
    start <= end (a log is untrusted input)."""
    if not isinstance(value, list) or len(value) > MAX_INTERVALS:
        raise fail(*where, f"a list of at most {MAX_INTERVALS} [start, end] pairs expected")
    spans = []
    for span in value:
        ok = isinstance(span, list) and len(span) == 2
        ok = ok and all(isinstance(x, int | float) and not isinstance(x, bool) for x in span)
        if not ok or not all(math.isfinite(x) for x in span) or span[0] > span[1]:
            raise fail(*where, f"not a [start, end] interval in seconds: {str(span)[:80]}")
        spans.append([float(span[0]), float(span[1])])
    return spans


def _argument_interval(arguments: Any) -> list[list[float]]:
    """The interval a call asked about (`start`, `end` in seconds), when it names one."""
    if not isinstance(arguments, dict):
        return []
    start, end = arguments.get("start"), arguments.get("end")
    numbers = all(isinstance(x, int | float) and not isinstance(x, bool) for x in (start, end))
    if numbers and math.isfinite(start) and math.isfinite(end) and start <= end:
        return [[float(start), float(end)]]
    return []


def _error(call, result, tools: list[str]) -> str | None:
    """The call's error as StoryScope's loop records it (the `ToolError` message): an unknown
    tool and arguments that fail the schema are refused by inspect before the tool runs, and
    are worded here as the tools' own `call_tool` words them."""
    if tools and call.function not in tools:
        try:
            get_tool(call.function)
        except ToolError as exc:
            return str(exc)
        return f"unknown tool {call.function!r}; the tools are {', '.join(tools)}"
    if call.parse_error:
        return f"bad arguments for {call.function}: {call.parse_error}"
    if result is None:
        return "tool failed: no result (the sample ended before the call ran)"
    if result.error is None:
        return None
    if result.error.type == "parsing":
        return f"bad arguments for {call.function}: {result.error.message}"
    return result.error.message  # the tool's own ToolError, raised through inspect


def _given_back(result, error: str | None) -> str:
    """What the model was given back: the tool's text; for a failed call, its error (as the
    loop gives it: `error: ...`)."""
    text = result.text if result is not None else ""
    return text if text or error is None else f"error: {error}"


def _steps(sample, recorded: dict, tools: list[str], where) -> tuple[list[dict], int]:
    results = {m.tool_call_id: m for m in sample.messages if m.role == "tool"}
    steps, turns = [], 0
    for message in sample.messages:
        if message.role != "assistant":
            continue
        for call_index, call in enumerate(message.tool_calls or []):
            result = results.get(call.id)
            error = _error(call, result, tools)
            text = _given_back(result, error)
            key = _call_key(call.function, call.arguments)
            if error is None and key in recorded:
                field = (where[0], where[1], f"store.{where[2]}[{key[:60]}]")
                intervals = _checked_intervals(recorded[key], field)
            else:
                intervals = [] if error else _argument_interval(call.arguments)
            steps.append(
                {
                    "turn": turns,
                    "call_index": call_index,
                    "tool": call.function,
                    "arguments": call.arguments,
                    "intervals": intervals,
                    "result_chars": len(text),
                    "result_text": text[:MAX_RESULT_CHARS],
                    "error": error,
                }
            )
        turns += 1
    return steps, turns


def _tokens(sample) -> tuple[int | None, int | None]:
    """The agent's own model turns' tokens (the judge's and a tool's model calls left out):
    the model events whose reply is one of the sample's assistant messages."""
    turns = {m.id for m in sample.messages if m.role == "assistant" and m.id}
    prompt = completion = 0
    found = False
    for event in sample.events or []:
        if getattr(event, "event", None) != "model" or event.output is None:
            continue
        choices = event.output.choices
        if not choices or choices[0].message.id not in turns or event.output.usage is None:
            continue
        found = True
        prompt += event.output.usage.input_tokens
        completion += event.output.usage.output_tokens
    return (prompt, completion) if found else (None, None)


def _outcome(sample, text: str | None, steps_turns: int, step_limit: int | None):
    """(outcome, failure): answered, step_limit or failed, as StoryScope's loop records them."""
    if sample.error is not None:
        return "failed", f"harness error: {sample.error.message[:300]}"
    if getattr(sample, "limit", None) is not None:
        return "failed", f"inspect's {sample.limit.type} limit reached ({sample.limit.limit})"
    last = next((m for m in reversed(sample.messages) if m.role == "assistant"), None)
    if last is not None and last.tool_calls:
        if step_limit is not None and steps_turns >= step_limit:
            return "step_limit", f"no answer after {step_limit} turns (the step limit)"
        return "failed", "the loop ended while the model was still calling tools"
    if not (text or "").strip():
        return "failed", f"model turn {steps_turns - 1} replied with neither tools nor an answer"
    return "answered", None


def sample_trail(sample, task: dict, text: str | None, label: str, record: str) -> dict:
    """The sample's trail (staged with the sample as JSON; written by the import under its
    run and setting): `steps` (agent_steps rows without run, setting and question) and the
    agent_answers fields of the sample (`outcome`: answered, step_limit, failed).

    Raises:
        ImportFailure: a recorded interval is not an interval (file, sample and field named).
    """
    trail_key = task.get("trail_key") or "storyscope_trail"
    recorded = (sample.store or {}).get(trail_key) or {}
    if not isinstance(recorded, dict):
        raise fail(label, record, f"store.{trail_key}", "an object of call -> intervals expected")
    tools = list(task.get("tools") or [])
    steps, turns = _steps(sample, recorded, tools, (label, record, trail_key))
    step_limit = task.get("step_limit")
    outcome, failure = _outcome(sample, text, turns, step_limit)
    prompt_tokens, completion_tokens = _tokens(sample)
    trail = {
        "tier": task.get("tier"),
        "outcome": outcome,
        "turns": turns,
        "tool_calls": len(steps),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "tool_mode": "harness",
        "failure": failure,
        "steps": steps,
    }
    return trail
