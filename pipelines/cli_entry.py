"""The `storyscope` console script and `python -m pipelines`: the CLI's Ctrl-C handling armed
(pipelines/cli_signals.py) before the heavy imports of `pipelines.cli` begin."""

from __future__ import annotations

from pipelines import cli_signals


def run_cli() -> None:
    """Arm, then import and run the CLI."""
    cli_signals.starting()
    from pipelines.cli import main

    main()
