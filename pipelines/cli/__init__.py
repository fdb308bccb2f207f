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
    load_commands()
    app()


__all__ = ["app", "load_commands", "main"]
