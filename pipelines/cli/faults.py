"""The one place where an expected fault becomes a message: what is wrong, and what to do.

Every `storyscope` command runs inside `FaultMappingGroup.invoke`, so a fault raised anywhere
below a command (an importer, the store, a pipeline step) reaches the user as one line
`error: <what is wrong>: <what to do>` and a non-zero exit, never as a Python traceback.
Faults we do not expect (a bug) keep their traceback, so they can be reported and fixed; set
`STORYSCOPE_DEBUG=1` to see the traceback of an expected fault too.

Exit codes: 2 bad input or bad store, 3 store busy, 4 disk full or another I/O fault,
130 interrupted.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass

import typer
from typer.core import TyperGroup

# What the command line itself raises to exit (usage errors, --help, typer.Exit): not faults.
_CLI_EXITS = (typer.Exit, typer.Abort, getattr(typer, "TyperException", typer.BadParameter))
if not hasattr(typer, "TyperException"):  # pragma: no cover - older typer
    import click

    _CLI_EXITS = (typer.Exit, typer.Abort, click.ClickException)

BAD_INPUT, BUSY, IO_FAULT, INTERRUPTED = 2, 3, 4, 130
_BAD_PARAMETER = getattr(typer, "BadParameter", ())

# What a user can do about each errno an expected OSError carries.
_OS_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space and run the command again"
    " (the store was left as it was before the command)",
    errno.EDQUOT: "the disk quota is used up: free some space and run the command again",
    errno.EACCES: "permission denied: check the file's owner and mode",
    errno.EPERM: "operation not permitted: check the file's owner and mode",
    errno.ENOENT: "no such file or folder (a dangling symlink?): check the path",
    errno.ELOOP: "too many levels of symbolic links (a symlink loop): point it at a real file",
    errno.EISDIR: "is a folder, not a file: give the path of a file",
    errno.ENOTDIR: "a part of the path is not a folder: check the path",
    errno.EROFS: "the file system is read-only: write the store somewhere writable",
    errno.ENAMETOOLONG: "the path is too long: use a shorter path",
}
_DISK_FULL_WORDS = ("no space left on device", "disk quota exceeded")


@dataclass(frozen=True)
class FaultMessage:
    """One line for the user and the exit code that goes with it."""

    text: str
    code: int = BAD_INPUT


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _os_message(exc: OSError) -> FaultMessage:
    advice = _OS_ADVICE.get(exc.errno or 0)
    where = f"{exc.filename}: " if exc.filename else ""
    if advice is None:
        return FaultMessage(f"{where}{exc.strerror or _first_line(exc)}", IO_FAULT)
    return FaultMessage(f"{where}{advice}", IO_FAULT if exc.errno == errno.ENOSPC else BAD_INPUT)


def _duckdb_message(exc: Exception) -> FaultMessage | None:
    import duckdb

    text = _first_line(exc)
    lowered = text.lower()
    if any(words in lowered for words in _DISK_FULL_WORDS):
        return FaultMessage(
            f"the disk is full ({text}): free some space and run the command again"
            " (the store was left as it was before the command)",
            IO_FAULT,
        )
    if "corrupt" in lowered or "checksum" in lowered:
        return FaultMessage(
            f"the store is damaged ({text}): run `storyscope store check` and restore the last"
            " good copy (`storyscope store backup`) or rebuild it from the sources (README,"
            " 'Recovering a damaged store')",
            BAD_INPUT,
        )
    if isinstance(exc, duckdb.IOException):
        return FaultMessage(f"I/O error on the store: {text}", IO_FAULT)
    if isinstance(exc, (duckdb.OutOfRangeException, duckdb.ConversionException)):
        return FaultMessage(f"a value does not fit its column: {text}", BAD_INPUT)
    return None


def describe_fault(exc: BaseException) -> FaultMessage | None:
    """The message for an expected fault, or None for one we do not expect (a bug)."""
    import duckdb

    from data_access.importers.errors import ImportFailure
    from data_access.store import StoreBusy
    from data_access.store.health import StoreProblem
    from data_access.store.interrupts import WorkInterrupted, is_interrupt
    from data_access.store.migrations import UpgradeInterrupted
    from pipelines.numeric_settings import SettingOutOfRange

    if isinstance(exc, ImportFailure):
        return FaultMessage(exc.describe(), BAD_INPUT)
    if isinstance(exc, StoreBusy):
        return FaultMessage(
            f"{exc}: close the app or wait for the other command to finish, then run this"
            " one again",
            BUSY,
        )
    if isinstance(exc, (StoreProblem, SettingOutOfRange)):
        return FaultMessage(str(exc), BAD_INPUT)
    if isinstance(exc, WorkInterrupted | UpgradeInterrupted):
        return FaultMessage(str(exc), INTERRUPTED)
    if is_interrupt(exc):
        return FaultMessage(
            "interrupted: the write in progress was rolled back and what was committed"
            " before it stays (each import and job batch is all or nothing); run the command"
            " again, or `storyscope jobs resume` for a job",
            INTERRUPTED,
        )
    if isinstance(exc, OSError):
        return _os_message(exc)
    if isinstance(exc, duckdb.Error):
        return _duckdb_message(exc)
    if isinstance(exc, MemoryError):
        return FaultMessage("out of memory: import the data in smaller parts", IO_FAULT)
    return None


def failed_job_fault(job_id: str, error: str | None) -> FaultMessage:
    """The line and exit code for a job that ended `failed` with the recorded `error`.

    A job records why it failed as text (its row outlives the process), so the fault is read
    back from that text: a disk that filled mid-run exits 4 as one full from the start does.
    """
    text = error or "no reason recorded"
    if any(words in text.lower() for words in _DISK_FULL_WORDS):
        return FaultMessage(
            f"job {job_id} failed: the disk is full ({text}): free some space, then"
            f" `storyscope jobs resume {job_id}` (what it wrote before stays)",
            IO_FAULT,
        )
    return FaultMessage(f"job {job_id} failed: {text}", BAD_INPUT)


def report_fault(exc: BaseException) -> None:
    """Turn an expected fault into one line and an exit; re-raise anything else."""
    message = describe_fault(exc)
    if message is None or os.environ.get("STORYSCOPE_DEBUG"):
        raise exc
    typer.secho(f"error: {message.text}", err=True, fg=typer.colors.RED)
    raise typer.Exit(message.code) from None


def _bad_parameter_line(exc) -> typer.Exit:
    """A value the command line refused (typer's own checks) as one `error:` line, naming the
    env var when it gave the value."""
    from pipelines.cli.option_ranges import env_note, option_label

    text = exc.format_message()
    missing = type(exc).__name__ == "MissingParameter"  # its own message names the option
    if exc.param is not None and exc.ctx is not None and exc.message and not missing:
        text = f"{option_label(exc.param)}: {exc.message}{env_note(exc.ctx, exc.param)}"
    typer.secho(f"error: {text}", err=True, fg=typer.colors.RED)
    return typer.Exit(BAD_INPUT)


class FaultMappingGroup(TyperGroup):
    """The root command group: runs every command under `report_fault`, every numeric option
    range-checked (pipelines/cli/option_ranges.py) and the numeric env vars read outside the options
    checked before any command runs (pipelines/numeric_settings.py)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from pipelines.cli.option_ranges import check_numeric_options

        check_numeric_options(self)

    def invoke(self, ctx):
        from pipelines import cli_signals
        from pipelines.numeric_settings import check_environment

        try:
            cli_signals.working()  # a Ctrl-C is a KeyboardInterrupt only inside the command
            check_environment(os.environ)
            return super().invoke(ctx)
        except _BAD_PARAMETER as exc:
            raise _bad_parameter_line(exc) from None
        except _CLI_EXITS:
            raise
        except (Exception, KeyboardInterrupt) as exc:  # the CLI's single fault root
            report_fault(exc)
        finally:
            cli_signals.finishing()
