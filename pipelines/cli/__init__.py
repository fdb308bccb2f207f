"""Command-line interface: `storyscope ...` (typer). See `pipelines/cli/app.py`."""

from __future__ import annotations

import importlib
import pkgutil

from pipelines.cli.app import app


def load_commands() -> None:
    """Import every `cmd_*` module so its commands register on the app."""
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{module.name}")


def main() -> None:
    """Console-script entry point."""
    from pipelines.progress import cli_bars

    load_commands()
    with cli_bars():  # long steps report progress (pipelines.progress); bars go to stderr
        app()


__all__ = ["app", "load_commands", "main"]
