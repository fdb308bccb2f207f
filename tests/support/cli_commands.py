"""The `storyscope` commands as data, for tests: every leaf command's path, and the store mode
each one declares where it opens the store."""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap


def command_paths() -> list[str]:
    """Every leaf command as typed after `storyscope` (`import lfvqa`, `stats`, ...)."""
    import typer.main

    from pipelines.cli import app, load_commands

    load_commands()

    def walk(command, prefix: str):
        children = getattr(command, "commands", None)
        if not children:
            yield prefix
            return
        for name, child in children.items():
            yield from walk(child, f"{prefix} {name}".strip())

    return list(walk(typer.main.get_command(app), ""))


def _callbacks(typer_app, prefix: str = ""):
    """(command path, the function it runs) for every command of `typer_app`."""
    for info in typer_app.registered_commands:
        name = info.name or info.callback.__name__.replace("_", "-")
        yield f"{prefix} {name}".strip(), info.callback
    for group in typer_app.registered_groups:
        yield from _callbacks(group.typer_instance, f"{prefix} {group.name}".strip())


def _declared_modes(function, seen: frozenset = frozenset()) -> set[str]:
    """The `mode=` literals of `open_store` calls in `function` and in the functions of its own
    module it calls (one store-opening helper per command is the usual shape). A call without
    a literal mode counts as "default"."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    module = sys.modules[function.__module__]
    modes: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "open_store":
            mode = next((k.value for k in node.keywords if k.arg == "mode"), None)
            modes.add(mode.value if isinstance(mode, ast.Constant) else "default")
            continue
        helper = getattr(module, node.func.id, None)
        if (
            inspect.isfunction(helper)
            and helper.__module__ == function.__module__
            and helper.__name__ not in seen
        ):
            modes |= _declared_modes(helper, seen | {function.__name__})
    return modes


def store_modes() -> dict[str, set[str]]:
    """command path -> the modes it opens the store with (commands that never open it left out)."""
    from pipelines.cli import app, load_commands

    load_commands()
    found = {path: _declared_modes(callback) for path, callback in _callbacks(app)}
    return {path: modes for path, modes in found.items() if modes}
