"""Command-line interface: `storyscope ...` (typer). See `pipelines/cli/app.py`."""

from __future__ import annotations

import importlib
import pkgutil
import sys

from pipelines.cli.app import app, fail


def load_commands() -> None:
    """Import every `cmd_*` module so its commands register on the app."""
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{module.name}")


def main() -> None:
    """The CLI in this process (`pipelines.cli_entry.run_cli` is the console script)."""
    from pipelines import cli_signals

    cli_signals.starting()  # Ctrl-C from here on is one line and exit 130, never a traceback
    from data_access.store.interrupts import interrupt_statements_on_ctrl_c
    from pipelines.progress import cli_bars

    interrupt_statements_on_ctrl_c()  # a Ctrl-C stops DuckDB's statement, not just Python
    load_commands()
    with cli_bars():  # long steps report progress (pipelines.progress); bars go to stderr
        try:
            app()
        except Exception as exc:
            # Any LLM step whose endpoint refused the run (a refused key, a redirect):
            # one error line, not a traceback. (The gateway's module is loaded if it raised.)
            gateway_calls = sys.modules.get("pipelines.llm.calls")
            if gateway_calls is None or not isinstance(exc, gateway_calls.EndpointRefused):
                raise
            raise SystemExit(fail(str(exc)).exit_code) from None


__all__ = ["app", "load_commands", "main"]
