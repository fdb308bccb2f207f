"""Tool calls through the gateway: the counterpart of structured-output negotiation for
requests that carry OpenAI `tools` (an agent's turns).

Two modes, negotiated per (base URL, model) like the structured-output modes and remembered in
the store (`llm_endpoint_tool_modes`):

1. `tools` (native): the request carries `tools` and `tool_choice: "auto"`; the reply's
   `message.tool_calls` are the calls.
2. `tools-prompt` (the documented fallback, for servers or chat templates without tool
   calling): no `tools` field; the tool list and a reply format are appended to the system
   message, and the history's tool calls and results are written as plain messages. The model
   replies `{"tool_calls": [{"name": ..., "arguments": {...}}]}` to call tools, or
   `{"answer": "..."}` (or plain prose) to answer.

A request's history is always kept in the native form (assistant messages with `tool_calls`,
`tool` messages with results); the prompt mode renders it at send time, so one conversation
can move to the fallback mid-run. Either way the gateway's reply text for a tool request is
canonical JSON `{"content": ..., "tool_calls": [...]}` when there are calls, else the answer
text, and `parse_tool_reply` reads both.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

import openai

from pipelines.llm.json_text import first_json_value, strip_fences

NATIVE = "tools"
PROMPT = "tools-prompt"
TOOL_MODES = (NATIVE, PROMPT)
CONFIG_CHOICES = ("auto", "native", "prompt")  # LLMConfig.tool_calls

_TOOL_WORDS = re.compile(r"\btools?\b|tool_choice|tool[ _]call|function[ _]call", re.I)
_NOT_REJECTIONS = (408, 409, 429)


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for (arguments as the JSON text the model wrote)."""

    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolReply:
    """A model turn: its text and the tool calls it asked for (none: the text is the answer)."""

    content: str
    calls: tuple[ToolCall, ...] = field(default=())


def pinned_mode(config_value: str) -> str | None:
    """The tool mode a config pins (`native`, `prompt`), None for `auto`."""
    return {"native": NATIVE, "prompt": PROMPT}.get(config_value)


def is_tool_rejection(exc: BaseException) -> bool:
    """True when an HTTP error says the server refuses the `tools` field (any 4xx/5xx but
    timeouts, conflicts and rate limits, whose body names tools or function calling)."""
    if not isinstance(exc, openai.APIStatusError):
        return False
    if exc.status_code in _NOT_REJECTIONS or exc.status_code < 400:
        return False
    text = f"{exc.message} {exc.body}"
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            text += f" {response.text}"
        except Exception:  # noqa: BLE001 - a streamed body may be unreadable; message suffices
            pass
    return bool(_TOOL_WORDS.search(text))


# -- the reply --------------------------------------------------------------------------------
def reply_text(message: dict) -> str:
    """The gateway's reply text of a native tool-mode message: canonical JSON with the calls,
    or the content when the model called nothing."""
    calls = message.get("tool_calls") or []
    content = message.get("content") or ""
    if not calls:
        return content
    encoded = []
    for call in calls:
        function = call.get("function") or {}
        arguments = function.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        encoded.append(
            {"id": call.get("id") or "", "name": function.get("name") or "", "arguments": arguments}
        )
    return json.dumps({"content": content, "tool_calls": encoded}, ensure_ascii=False)


def parse_tool_reply(text: str) -> ToolReply:
    """Read a tool-request reply (either mode): calls when it holds `tool_calls` (or the
    fallback's single `{"name", "arguments"}`), the `answer` field, else the text as the answer.

    Raises:
        ValueError: the reply starts a tool-call object that does not parse (cut short).
    """
    stripped = strip_fences(text.strip())
    value = _json_object(stripped)
    if value is None and "tool_calls" in stripped:
        embedded = first_json_value(stripped)
        value = _json_object(embedded) if embedded else None
        if value is None and stripped.startswith("{"):
            raise ValueError("malformed tool call: the reply's JSON does not parse")
    if value is None:
        return ToolReply(text.strip())
    if "tool_calls" in value or ("name" in value and "arguments" in value):
        raw_calls = value.get("tool_calls", [value])
        if not isinstance(raw_calls, list):
            raise ValueError("malformed tool call: tool_calls is not a list")
        content = value.get("content") or ""
        return ToolReply(str(content), tuple(_call(c, i) for i, c in enumerate(raw_calls)))
    if "answer" in value:
        return ToolReply(str(value.get("answer") or "").strip())
    return ToolReply(text.strip())


def _json_object(text: str | None) -> dict | None:
    if not text or not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _call(raw, index: int) -> ToolCall:
    if not isinstance(raw, dict):
        return ToolCall(f"call-{index}", "", json.dumps(raw))
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return ToolCall(str(raw.get("id") or f"call-{index}"), str(raw.get("name") or ""), arguments)


# -- the history ------------------------------------------------------------------------------
def assistant_message(reply: ToolReply) -> dict:
    """The native assistant message of a turn that called tools (kept in the history)."""
    return {
        "role": "assistant",
        "content": reply.content or None,
        "tool_calls": [
            {
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in reply.calls
        ],
    }


def tool_message(call: ToolCall, text: str) -> dict:
    """The native `tool` message carrying a call's result."""
    return {"role": "tool", "tool_call_id": call.call_id, "content": text}


@lru_cache(maxsize=64)
def _instructions(tools_json: str) -> str:
    tools = json.loads(tools_json)
    lines = [
        "You can call tools. To call tools, reply with one JSON object only:",
        '{"tool_calls": [{"name": "<tool>", "arguments": {...}}]}',
        'To give your final answer, reply with {"answer": "<your answer>"}.',
        "The tools:",
    ]
    for tool in tools:
        function = tool.get("function", tool)
        parameters = json.dumps(function.get("parameters", {}), sort_keys=True)
        lines.append(f"- {function.get('name')}: {function.get('description', '')} {parameters}")
    return "\n".join(lines)


def prompt_messages(messages: list[dict], tools: list[dict]) -> list[dict]:
    """The fallback's rendering of a native history: the tool list and reply format in the
    system message, calls as the assistant's JSON text, results as user messages."""
    instructions = _instructions(json.dumps(tools, sort_keys=True))
    rendered: list[dict] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [
                {
                    "name": c["function"]["name"],
                    "arguments": _loads_or_text(c["function"]["arguments"]),
                }
                for c in message["tool_calls"]
            ]
            rendered.append({"role": "assistant", "content": json.dumps({"tool_calls": calls})})
        elif role == "tool":
            rendered.append(
                {"role": "user", "content": f"Tool result:\n{message.get('content', '')}"}
            )
        else:
            rendered.append({k: v for k, v in message.items() if k in ("role", "content")})
    if rendered and rendered[0].get("role") == "system":
        first = rendered[0]
        rendered[0] = {**first, "content": f"{first.get('content', '')}\n\n{instructions}"}
    else:
        rendered.insert(0, {"role": "system", "content": instructions})
    return rendered


def _loads_or_text(arguments: str):
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


class ToolModeState:
    """A gateway's tool mode: pinned by configuration, or negotiated (remembered mode, else
    native first; a rejection of `tools` moves to the fallback at once and is remembered)."""

    def __init__(self, config_value: str) -> None:
        self.pinned = pinned_mode(config_value)
        self.mode: str | None = self.pinned
        self.remembered: str | None = None
        self.reason: str | None = None
        self.to_save: str | None = None

    def current(self, remembered) -> str:
        """The mode now; `remembered()` reads the store's mode once, when negotiating."""
        if self.mode is None:
            self.remembered = remembered()
            self.mode = self.remembered or NATIVE
        return self.mode

    def step_down(self, error: str) -> str | None:
        """After the server refused `tools`: the fallback (None when the mode is pinned)."""
        if self.pinned is not None:
            return None
        self.mode, self.reason = PROMPT, error
        return PROMPT

    def accepted(self, mode: str) -> None:
        """The server answered in `mode`: remember it when it is new."""
        if self.pinned is None and mode == self.mode and mode != self.remembered:
            self.to_save = self.remembered = mode

    def take_to_save(self) -> tuple[str | None, str | None]:
        """(mode to remember, its reason) once, then nothing until the next change."""
        mode, self.to_save = self.to_save, None
        return mode, self.reason
