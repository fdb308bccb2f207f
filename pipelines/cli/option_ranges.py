"""One range check for every numeric option of every command: no traceback,
nothing out of range accepted silently, no setting that makes a wait hang.

`check_numeric_options` gives every int and float option the range of its name
(`pipelines.numeric_settings.OPTION_RANGES`), whether the value came from the command line or
its env var: out of range, the command stops before it runs with one `error:` line naming the
option and the variable that set it, exit 2. The root group (`faults.FaultMappingGroup`) applies
it to the whole command tree once, so no command has to remember to. It prints its own line
(not `app.fail`): the root group imports this module, and `app` imports the root group.
"""

from __future__ import annotations

import typer


def _env_name(ctx, param) -> str:
    """The env var that sets `param` (its own, else click's `<PREFIX>_<NAME>`)."""
    if param.envvar:
        return param.envvar if isinstance(param.envvar, str) else param.envvar[0]
    return f"{ctx.auto_envvar_prefix}_{param.name.upper()}"


def option_label(param) -> str:
    """`--limit` (an argument: `LIMIT`)."""
    from typer.core import TyperOption

    return max(param.opts, key=len) if isinstance(param, TyperOption) else param.name.upper()


def env_note(ctx, param) -> str:
    """` (set by STORYSCOPE_JUDGE_LIMIT)` when the env var gave the value, else ''."""
    source = ctx.get_parameter_source(param.name)
    if source is not None and source.name == "ENVIRONMENT":
        return f" (set by {_env_name(ctx, param)})"
    return ""


def _range_callback(previous, allowed):
    """A parameter callback refusing values outside `allowed`, then calling `previous`."""

    def check(ctx, param, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        for number in values:
            problem = None if number is None else allowed.problem(number)
            if problem is not None:
                text = f"{option_label(param)} {problem}{env_note(ctx, param)}"
                typer.secho(f"error: {text}", err=True, fg=typer.colors.RED)
                raise typer.Exit(2)
        return previous(ctx, param, value) if previous is not None else value

    return check


def check_numeric_options(command) -> None:
    """Give every int and float parameter of `command` and its subcommands the range check of
    its name (`pipelines.numeric_settings.OPTION_RANGES`); the bounds a command declares itself
    (`min=`/`max=`) still apply, checked by typer first."""
    from pipelines.numeric_settings import option_range

    for sub in getattr(command, "commands", {}).values():
        check_numeric_options(sub)
    for param in getattr(command, "params", ()):
        kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if kind in (int, float) and not getattr(param, "range_checked", False):
            param.callback = _range_callback(param.callback, option_range(param.name, kind is int))
            param.range_checked = True
