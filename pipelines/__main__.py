# the CLI's Ctrl-C handling is armed before the heavy imports (pipelines/cli_signals.py)
from pipelines.cli_signals import run_cli

run_cli()
