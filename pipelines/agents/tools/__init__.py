"""The agents' five tools (LF-VideoQA §4.3), defined once: each is a name, a description, a
JSON schema of its arguments and one function over a film's index, so StoryScope's own agent
loop and an exported inspect_ai task call the same code."""

from pipelines.agents.tools.registry import (
    MAX_RESULT_CHARS,
    TIERS,
    TOOLS,
    AgentTool,
    ToolError,
    ToolResult,
    get_tool,
    register_tool,
    tool_names,
)

__all__ = [
    "MAX_RESULT_CHARS",
    "TIERS",
    "TOOLS",
    "AgentTool",
    "ToolError",
    "ToolResult",
    "get_tool",
    "register_tool",
    "tool_names",
]
