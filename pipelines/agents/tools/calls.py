"""One way to call a tool: `call_tool(index, name, arguments)` checks the name and the arguments
(against the tool's JSON schema), runs the tool over the film index and bounds what it gives
back. A bad call is a `ToolError` whose message the model can act on; the agent loop records
it in the trail and tells the model."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from pipelines.agents.tools.index import FilmIndex
from pipelines.agents.tools.registry import MAX_RESULT_CHARS, ToolError, ToolResult, get_tool
from pipelines.agents.tools.text import bounded


def call_tool(index: FilmIndex, name: str, arguments: dict | str) -> ToolResult:
    """Run tool `name` with `arguments` (a dict, or its JSON text) over `index`.

    Returns:
        The tool's result, its text at most `MAX_RESULT_CHARS` long.

    Raises:
        ToolError: unknown tool, arguments that are not a JSON object or fail the tool's
            schema, or data the film lacks; nothing else for a bad call.
    """
    tool = get_tool(name)
    checked = parse_arguments(name, arguments)
    problems = sorted(
        Draft202012Validator(tool.parameters).iter_errors(checked), key=lambda e: list(e.path)
    )
    if problems:
        raise ToolError(f"bad arguments for {name}: {_explain(problems[0])}; {_usage(tool)}")
    result = tool.run(index, checked)
    return ToolResult(bounded(result.text, MAX_RESULT_CHARS), tuple(result.intervals))


def parse_arguments(name: str, arguments: dict | str | None) -> dict:
    """The arguments as a dict (a JSON text decoded; none given: {}).

    Raises:
        ToolError: not JSON, or not a JSON object.
    """
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"bad arguments for {name}: not valid JSON ({exc.msg} at character {exc.pos});"
                " pass a JSON object"
            ) from None
    if not isinstance(arguments, dict):
        raise ToolError(
            f"bad arguments for {name}: expected a JSON object, got {type(arguments).__name__}"
        )
    return arguments


def _explain(error) -> str:
    where = "/".join(str(part) for part in error.path)
    return f"{where}: {error.message}" if where else error.message


def _usage(tool) -> str:
    """`expected {start: number, end: number}` from the tool's schema, for the model."""
    properties = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    fields = ", ".join(
        f"{key}{'' if key in required else '?'}: {spec.get('type', 'any')}"
        for key, spec in properties.items()
    )
    return f"expected {{{fields}}}"
