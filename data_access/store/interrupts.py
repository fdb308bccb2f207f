"""Ctrl-C (SIGINT) as it reaches us, and what it did to a transactional write:
an interrupt leaves the store as it was.

An interrupt arrives as Python's `KeyboardInterrupt` between statements, but while DuckDB runs a
statement DuckDB takes the signal and raises `RuntimeError: Query interrupted` instead (or its
`InterruptException`), which a handler for `Exception` would take for a failure. `is_interrupt`
knows all three, also when another exception wraps them.

DuckDB's own check is not enough: it looks for a pending signal only between the tasks the
calling thread runs, and while its worker threads run a long statement the calling thread can
wait for minutes without looking (DuckDB 2.0, more than one thread: a Ctrl-C 0.3 s into a long
query was ignored). `interrupt_statements_on_ctrl_c` closes that gap: Python's C-level signal
handler writes each signal to a wakeup pipe, and a watcher thread reading it calls DuckDB's
thread-safe `interrupt()` on every open session cursor
(`data_access.store.connection.live_cursors`). It
repeats that while those cursors stay open, for a signal that lands between a statement's call
and its start; cursors opened after the signal (the rollback report, the job's state) are left
alone. Python's own handler still raises `KeyboardInterrupt` as before.

A transaction interrupted before its COMMIT is rolled back; one interrupted at or after the
COMMIT (the rollup refresh, printing the report) is kept, and a rerun of the import would be
refused as already present. `telling_interrupts` finds out which by asking the store for the
run the import writes, and raises `WorkInterrupted` saying so.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from data_access.store import Store, live_cursors
from data_access.store.interrupt_kinds import is_interrupt  # noqa: F401 (re-exported)

# How often, and how many times, the watcher repeats the interrupt while the cursors it
# interrupted stay open (a statement that had not begun when the signal came is caught by the
# next one).
_REPEAT_EVERY_S = 0.2
_REPEATS = 50
_watching = False


class WorkInterrupted(Exception):
    """An interrupted write; the message says whether it was rolled back or kept."""


def _runs_of(store: Store, step: str, source: str | None) -> list[str]:
    rows = store.rows(
        "SELECT run_id FROM runs WHERE step = ? AND (? IS NULL OR source = ?) ORDER BY started_at",
        [step, source, source],
    )
    return [run_id for (run_id,) in rows]


@contextmanager
def telling_interrupts(store: Store, step: str, source: str | None, what: str) -> Iterator[None]:
    """Run an import (one transaction writing runs of `step`, from `source` when given); a
    Ctrl-C inside becomes `WorkInterrupted` saying whether `what` was rolled back or kept."""
    before = set(_runs_of(store, step, source))
    try:
        yield
    except BaseException as exc:
        if not is_interrupt(exc):
            raise
        kept = [run for run in _runs_of(store, step, source) if run not in before]
        if kept:
            message = (
                f"interrupted after {what} was committed: it was kept (run {kept[-1]});"
                " do not run it again (it would be refused as already present)"
            )
        else:
            message = (
                f"interrupted: {what} was rolled back, the store is as it was before;"
                " run the command again"
            )
        raise WorkInterrupted(message) from None


def _interrupt(cursors: dict[int, duckdb.DuckDBPyConnection]) -> None:
    for cursor in cursors.values():
        try:
            cursor.interrupt()
        except duckdb.Error:  # closed since the snapshot
            pass


def _interrupt_until_closed() -> None:
    """Interrupt the cursors open now, again and again until none of them is open."""
    targets = live_cursors()
    for _ in range(_REPEATS):
        _interrupt(targets)
        time.sleep(_REPEAT_EVERY_S)
        still_open = live_cursors()
        targets = {number: still_open[number] for number in targets if number in still_open}
        if not targets:
            return


def _watch(read_fd: int) -> None:
    while True:
        received = os.read(read_fd, 512)
        if not received:
            return
        if signal.SIGINT in received:
            _interrupt_until_closed()


def interrupt_statements_on_ctrl_c() -> bool:
    """From the main thread, once per process (the CLI does it): make a Ctrl-C stop the DuckDB
    statements running now (module docstring). False when it cannot: not the main thread, or
    another part of the process already owns the signal wakeup pipe."""
    global _watching
    if _watching:
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)  # the signal handler must never block
    previous = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    if previous != -1:  # someone else's pipe (an asyncio loop's): leave it theirs
        signal.set_wakeup_fd(previous)
        os.close(read_fd)
        os.close(write_fd)
        return False
    threading.Thread(target=_watch, args=(read_fd,), daemon=True, name="ctrl-c-watcher").start()
    _watching = True
    return True
