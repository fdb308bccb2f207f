"""The `storyscope` typer application and its command groups.

Commands live in `pipelines/cli/cmd_*.py` modules, each decorating functions on the apps below;
`pipelines.cli.main` imports them all. Every option is also settable by an env var, as inspect_ai
does: the shared ones by the name their help shows (`STORYSCOPE_STORE`, `STORYSCOPE_LLM_API_KEY`,
...), every other one by `STORYSCOPE_<COMMAND>_<OPTION>` (click's `auto_envvar_prefix`: e.g.
`STORYSCOPE_JUDGE_LIMIT`, `STORYSCOPE_IMPORT_LFVQA_<OPTION>` under a group; dashes become `_`).
The command is part of the name because options of the same name mean different things in
different commands (`--backend`, `--n`). `tests/pipelines/cli/test_cli_envvars.py` checks every
option.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from pipelines.cli.faults import FaultMappingGroup

app = typer.Typer(
    cls=FaultMappingGroup,  # every expected fault becomes one line, never a traceback
    name="storyscope",
    help="StoryScope: build, grade and explore long-form movie/TV QA benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"auto_envvar_prefix": "STORYSCOPE"},
)
import_app = typer.Typer(help="Import datasets into the store.", no_args_is_help=True)
app.add_typer(import_app, name="import")

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store", envvar="STORYSCOPE_STORE", help="DuckDB store file.", show_default=False
    ),
]
# one switch for every command: STORYSCOPE_JSON=1 makes a whole session print JSON
JsonOption = Annotated[
    bool, typer.Option("--json", envvar="STORYSCOPE_JSON", help="Print machine-readable JSON.")
]


# How a command opens the store, declared where it calls `open_store`:
# - "create": it brings data in (imports, `demo`, `migrate`, `film ingest`), so it may create a
#   missing store, and says so on stderr;
# - "write": it opens an existing store only, so a mistyped --store is refused with a message
#   instead of silently becoming a new, empty store;
# - "read": it only reads, so a store it cannot write (read-only on disk, or written by a newer
#   StoryScope) opens read-only with a warning; every other mode is refused such a store
#   (data_access.store.connection, "Read-only stores"), so nothing half-writes it.
StoreMode = Literal["create", "write", "read"]


def open_store(path: Path | None, mode: StoreMode = "write"):
    """The store named by --store / STORYSCOPE_STORE, else the default file, opened as `mode`
    says (see `StoreMode`)."""
    from data_access.store import Store, default_store_path

    path = Path(path or default_store_path())
    if mode == "create" and not path.exists() and not path.is_symlink():
        typer.echo(f"note: creating a new store at {path.resolve()}", err=True)
    if mode != "read":
        return Store(path, create=mode == "create")
    store = Store(path, create=False, fall_back_to_read_only=True)
    with store.session():  # opened now, so the warning comes before the command's output
        pass
    if store.read_only:
        typer.secho(f"warning: opened read-only: {store.read_only_reason}", err=True)
    return store


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error for the user (never a traceback) and return the exit to raise."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    return typer.Exit(code)
