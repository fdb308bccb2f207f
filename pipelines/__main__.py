# the CLI's Ctrl-C handling is armed before the heavy imports (pipelines/cli_entry.py)
from pipelines.cli_entry import run_cli

run_cli()
