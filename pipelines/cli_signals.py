"""Ctrl-C from a command's first second to its last: one `error:` line and exit 130, never a
traceback or a death by the signal (exit -2).

A command's life has three phases, each with its own answer to SIGINT:

- starting (imports, reading the command line): nothing has been done yet, so the process
  ends at once, saying so;
- working (inside the root group's `invoke`, pipelines/cli/faults.py): Python's own
  `KeyboardInterrupt`, so a write in progress is rolled back and the fault root says what
  was kept (data_access/store/interrupts.py);
- finishing (after the command returned, while the process shuts down: progress bars,
  DuckDB's close, threads joined, `atexit` callbacks): the work is done and kept, so the
  process ends at once, saying so;
- the last moments (after every other `atexit` callback): SIGINT is ignored, so the process
  exits with the command's own code. Past that point Python restores the signal's default
  action while it tears down, and a Ctrl-C there killed the process (exit -2, no word).

Before Python itself has started (its first tens of milliseconds: `site`) and the CLI armed,
the interpreter's own handling applies; that is out of this module's reach.

Only the CLI's own process arms this (`pipelines.cli_entry.run_cli`, `pipelines.cli.main`): a
test, the app or a library importing `pipelines.cli` keeps its own SIGINT handling. This module
imports nothing heavy, so it can be armed before the heavy imports start.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading

STARTING = "error: interrupted while the command was starting: nothing was done; run it again\n"
FINISHING = (
    "error: interrupted as the command was finishing: its work was done and kept"
    " (see its output above)\n"
)
INTERRUPTED = 130

_armed = False


def _exit_at_once(message: str):
    def handler(signum, frame) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:  # what the command printed before stays printed
                stream.flush()
            except Exception:  # noqa: BLE001 - a stream busy in the interrupted frame
                pass
        os.write(2, message.encode())
        os._exit(INTERRUPTED)

    return handler


def _may_own_sigint() -> bool:
    # A process started with SIGINT ignored (a background job of a non-interactive shell)
    # keeps it ignored; and only the main thread may set a handler.
    return threading.current_thread() is threading.main_thread() and (
        _armed or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    )


def starting() -> None:
    """Arm the CLI's handling (first thing in its process): Ctrl-C ends it at once."""
    global _armed
    if _may_own_sigint():
        signal.signal(signal.SIGINT, _exit_at_once(STARTING))
        if not _armed:
            # registered before any library registers its own, so it runs after all of them
            atexit.register(_last_moments)
        _armed = True


def _last_moments() -> None:
    # ignored, not blocked: a mask holds for one thread, and the kernel hands the signal to
    # any other (DuckDB's, the Ctrl-C watcher); and Python's teardown restores the default
    # action only where a Python handler was set, so an ignored signal stays ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def working() -> None:
    """The command's work begins: Ctrl-C raises `KeyboardInterrupt` (if armed)."""
    if _armed:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def finishing() -> None:
    """The command's work is over: Ctrl-C ends the process at once (if armed)."""
    if _armed:
        signal.signal(signal.SIGINT, _exit_at_once(FINISHING))
