"""One registry of the agent tools (LF-VideoQA §4.3): `subtitle_search`, `find_clips`, `vqa`,
`browse_clip`, `character_presence`.

A tool is a name, a description the model reads, a JSON schema of its arguments, and one
function `run(index, arguments) -> ToolResult` over a film's index for a tier. Its result is
text bounded to `MAX_RESULT_CHARS` (what the model is given back) plus the film intervals the
call touched (the evidence trail). The same definitions become OpenAI `tools` entries, the
prompt-level fallback's tool list and an exported inspect_ai task's tools.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# §4.3: regular (tools over the film as a viewer has it), fast (search over precomputed
# 10-second captions), oracle (tools backed by the screenplay).
TIERS = ("regular", "fast", "oracle")

MAX_RESULT_CHARS = 2000  # what one tool call gives back to the model, at most


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gave back.

    Attributes:
        text: what the model reads (at most `MAX_RESULT_CHARS`).
        intervals: the film spans (start_s, end_s) the call touched: the interval it was asked
            about, or the spans of the items it returned.
    """

    text: str
    intervals: tuple[tuple[float, float], ...] = ()


class ToolError(ValueError):
    """A call the tool cannot run: unknown tool, arguments that fail its schema, or data the
    film lacks. The message is what the model is told (and what the trail records)."""


ToolRunner = Callable[[Any, dict], ToolResult]


@dataclass(frozen=True)
class AgentTool:
    """One agent tool.

    Attributes:
        name: what the model calls.
        description: what the model is told it does (one or two sentences).
        parameters: the JSON schema of its arguments (an object schema).
        run: the function over a film index and validated arguments.
    """

    name: str
    description: str
    parameters: dict
    run: ToolRunner = field(compare=False)

    def openai_spec(self) -> dict:
        """The OpenAI chat-completions `tools` entry of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


TOOLS: dict[str, AgentTool] = {}


def register_tool(tool: AgentTool) -> AgentTool:
    """Add a tool to the registry (its name must be new)."""
    if tool.name in TOOLS:
        raise ValueError(f"tool {tool.name!r} registered twice")
    TOOLS[tool.name] = tool
    return tool


def get_tool(name: str) -> AgentTool:
    """The tool called `name`.

    Raises:
        ToolError: no such tool (the message lists the known ones, for the model).
    """
    try:
        return TOOLS[name]
    except KeyError:
        raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOLS)}") from None


def tool_names() -> list[str]:
    """Every registered tool's name, in registry order."""
    return list(TOOLS)
