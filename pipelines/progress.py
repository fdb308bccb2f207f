"""Progress of long work, reported without threading a callback through every signature.

Long steps (BERTScore encoding for difficulty, PlotTree builds over many films, demo steps)
call `report(label, done, total)` as they go. Nothing happens unless a reporter is installed
for the current context: the CLI installs progress bars on stderr (`cli_bars`), the app can
install one that feeds `st.progress`, tests can collect the calls. A context variable keeps
reporters of concurrent app sessions (threads) apart.

The bars are click's `progressbar` (typer's dependency, already installed); click draws them
only on a terminal and prints the label once otherwise, so logs stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Reporter = Callable[[str, int, int], None]
_reporter: ContextVar[Reporter | None] = ContextVar("storyscope_progress", default=None)


def report(label: str, done: int, total: int) -> None:
    """Say that `done` of `total` units of `label` are finished (no-op without a reporter)."""
    reporter = _reporter.get()
    if reporter is not None and total > 0:
        reporter(label, min(done, total), total)


@contextmanager
def reporting_to(reporter: Reporter | None) -> Iterator[None]:
    """Install `reporter` for the work done inside the block (in this context only)."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


class CliBars:
    """One click progress bar per label on stderr; a bar closes when its work is done or
    another label starts."""

    def __init__(self, file=None) -> None:
        self.file = file or sys.stderr
        self.label: str | None = None
        self.bar = None
        self.shown = 0

    def __call__(self, label: str, done: int, total: int) -> None:
        import click

        if label != self.label or self.bar is None:
            self.close()
            self.label, self.shown = label, 0
            self.bar = click.progressbar(length=total, label=label, file=self.file, width=30)
            self.bar.__enter__()
        self.bar.update(done - self.shown)
        self.shown = done
        if done >= total:
            self.close()

    def close(self) -> None:
        """Finish the open bar, if any."""
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
        self.bar, self.label = None, None


@contextmanager
def cli_bars() -> Iterator[CliBars]:
    """Progress bars on stderr for the CLI command run inside the block."""
    bars = CliBars()
    with reporting_to(bars):
        try:
            yield bars
        finally:
            bars.close()
