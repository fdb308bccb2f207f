"""The agents' five tools (LF-VideoQA §4.3), defined once: each is a name, a description, a
JSON schema of its arguments and one function over a film's index, so StoryScope's own agent
loop and an exported inspect_ai task call the same code.

    from pipelines.agents.tools import FilmIndex, call_tool
    index = FilmIndex.load(store, film_id, "oracle", ask=ask)
    result = call_tool(index, "find_clips", '{"query": "the ledger"}')
    result.text, result.intervals

What each tier reads is `pipelines.agents.tools.index` (docs/SETTINGS.md, "Agents: the
tools"); the tools are in `search` (subtitle_search, find_clips) and `interval` (vqa,
browse_clip, character_presence).
"""

from pipelines.agents.tools import interval as _interval  # noqa: F401 (registers the tools)
from pipelines.agents.tools import search as _search  # noqa: F401 (registers the tools)
from pipelines.agents.tools.calls import call_tool, parse_arguments
from pipelines.agents.tools.index import (
    DEFAULT_RANKERS,
    TIER_TABLES,
    Ask,
    FilmIndex,
    VideoRef,
)
from pipelines.agents.tools.ranking import RANKERS
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
from pipelines.agents.tools.search import warm_index

__all__ = [
    "DEFAULT_RANKERS",
    "MAX_RESULT_CHARS",
    "RANKERS",
    "TIERS",
    "TIER_TABLES",
    "TOOLS",
    "AgentTool",
    "Ask",
    "FilmIndex",
    "ToolError",
    "ToolResult",
    "VideoRef",
    "call_tool",
    "get_tool",
    "parse_arguments",
    "register_tool",
    "tool_names",
    "warm_index",
]
