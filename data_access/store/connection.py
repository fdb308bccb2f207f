"""The store: one DuckDB file shared by the app, the CLI and background jobs.

DuckDB lets one process hold a database file at a time. A researcher keeps the app open while
a CLI import or judge run writes to the same file, so no process keeps the file open while it
is idle: every unit of work opens the file, runs, and releases it (`Store.session`). Inside one
process all threads share the single open connection (a cursor per thread, DESIGN.md), and the
file is released when the last session ends. When another process holds the file, opening is
retried with backoff until `lock_timeout` passes; only then is `StoreBusy` raised, naming the
holder. Writers keep their transactions short (jobs commit per batch), so readers wait
milliseconds, not minutes; a long import holds the file for its own duration only.

Read-only stores: a store that cannot be written (the file or its folder is read-only on disk,
or a newer StoryScope wrote it: `data_access.store.migrations.NewerStore`) is refused to a writer
with
a message saying why. A reader that allows it (`fall_back_to_read_only`: the app, the CLI's read
commands) opens such a store with a read-only connection instead, never migrating it, and
`read_only_reason` says why for the warning it shows.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import duckdb
import pandas as pd

from data_access.store.health import (
    StoreProblem,
    check_path,
    explain_connect_error,
    note_clean_close,
    quick_check,
)
from data_access.store.migrations import NewerStore, newer_store_message, schema_status

T = TypeVar("T")

DEFAULT_STORE = Path("data") / "storyscope.duckdb"
MAX_LOCK_TIMEOUT_S = 86400.0  # a day: longer is a hung wait, not a patient one
_LOCK_MARKERS = ("could not set lock", "conflicting lock", "resource temporarily unavailable")


class StoreBusy(RuntimeError):
    """Another process held the store for longer than the lock timeout."""


class StoreReadOnly(StoreProblem):
    """A command that writes was given a store that can only be read."""


def default_lock_timeout() -> float:
    """Seconds to wait for a busy store: `STORYSCOPE_LOCK_TIMEOUT`, else 60."""
    text = os.environ.get("STORYSCOPE_LOCK_TIMEOUT") or "60"
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    # checked here too, not only by the CLI: the app and library callers read it as well, and a
    # NaN or negative wait never expires (no setting can make a wait hang); the range is the CLI's
    # (pipelines.numeric_settings.WAIT_SECONDS; tests/pipelines/cli/test_cli_option_ranges.py keeps
    # them equal)
    if not 0 <= seconds <= MAX_LOCK_TIMEOUT_S:
        raise StoreProblem(
            f"STORYSCOPE_LOCK_TIMEOUT={text!r}: expected seconds between 0 and"
            f" {MAX_LOCK_TIMEOUT_S:g}, e.g. 60"
        )
    return seconds


def default_store_path() -> Path:
    """The store path from `STORYSCOPE_STORE`, else `data/storyscope.duckdb`."""
    return Path(os.environ.get("STORYSCOPE_STORE") or DEFAULT_STORE)


@dataclass
class _OpenFile:
    """The one connection this process holds on a store file, with its user count."""

    connection: duckdb.DuckDBPyConnection
    read_only: bool = False
    users: int = 0
    closer: threading.Timer | None = None


_open_files: dict[Path, _OpenFile] = {}
_open_files_lock = threading.Lock()
_migrated: set[Path] = set()
# Called with the migrating cursor after a store gained migrations (data_access/__init__.py
# registers the rollups' refresh): the store owns the schema, not what is derived from it, so it
# is handed the hooks instead of importing the modules that keep derived tables.
_after_migrations: list[Callable[[duckdb.DuckDBPyConnection], object]] = []


# Every cursor a session has handed out and not closed yet, by a number never reused: what a
# Ctrl-C interrupts (data_access/store/interrupts.py).
_live_cursors: dict[int, duckdb.DuckDBPyConnection] = {}
_live_cursors_lock = threading.Lock()
_cursor_numbers = itertools.count()


def live_cursors() -> dict[int, duckdb.DuckDBPyConnection]:
    """The session cursors open now, by number (a snapshot)."""
    with _live_cursors_lock:
        return dict(_live_cursors)


@contextmanager
def _tracked(cursor: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """`cursor` among the live cursors while in use (a Ctrl-C interrupts its statement, the
    upgrade's migrations included), closed afterwards."""
    number = next(_cursor_numbers)
    with _live_cursors_lock:
        _live_cursors[number] = cursor
    try:
        yield cursor
    finally:
        with _live_cursors_lock:
            del _live_cursors[number]
        cursor.close()


def on_migrations_applied(hook: Callable[[duckdb.DuckDBPyConnection], object]) -> None:
    """Run `hook(cursor)` once whenever opening a store applied migrations to it, inside one
    transaction (`Store.in_transaction`): the hook never begins or commits one itself."""
    if hook not in _after_migrations:
        _after_migrations.append(hook)


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(marker in text for marker in _LOCK_MARKERS)


def _holder_hint(exc: Exception) -> str:
    match = re.search(r"PID (\d+)", str(exc))
    return f" (held by process {match.group(1)})" if match else ""


@dataclass
class Store:
    """One DuckDB store file; every SQL statement of the project runs through it.

    Args:
        path: the database file; created with its schema on first use.
        lock_timeout: seconds to keep retrying while another process holds the file.
        linger_s: seconds to keep the file open after the last session ends, so a burst of
            queries (one page render) pays one open; other processes wait at most this long.
            0 releases the file at once (CLI and jobs).
        create: whether a missing file may be created; false for commands that only read,
            so a mistyped path is refused (`StoreMissing`) instead of becoming an empty store.
        read_only: open the file with a read-only connection (no migration, no write).
        fall_back_to_read_only: for readers: when the store cannot be written (read-only on
            disk, or written by a newer StoryScope), open it read-only instead of refusing it;
            `read_only` and `read_only_reason` then say so.
    """

    path: Path = field(default_factory=default_store_path)
    lock_timeout: float = field(default_factory=default_lock_timeout)
    linger_s: float = 0.0
    create: bool = True
    read_only: bool = False
    fall_back_to_read_only: bool = False
    read_only_reason: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.path = Path(self.path).resolve()

    # -- connection life -------------------------------------------------------------
    def _open_connection(self) -> duckdb.DuckDBPyConnection:
        check_path(self.path, self.create)
        if not self.read_only:
            self._refuse_or_fall_back(_unwritable_reason(self.path))
        if not self.read_only:  # (asked again: a fall-back just above makes it read-only)
            self.path.parent.mkdir(parents=True, exist_ok=True)
        had_wal = Path(f"{self.path}.wal").exists()
        connection = self._connect_with_retry()
        try:
            # On a cursor closed right after, as are the migrations (_ensure_schema): a result
            # read with fetchone() on the connection itself stays open, and with it a read
            # transaction for the connection's whole life. With that transaction open, DuckDB
            # did not checkpoint at COMMIT an import that staged Parquet as a view, so its rows
            # went through the WAL (54 MB of a 1.1M-row import) and were written again at
            # close (docs/SCALE.md; tests/data_access/store/test_store.py).
            with closing(connection.cursor()) as check:
                quick_check(check, self.path, had_wal)  # a damaged store is refused on open
                newer = self._schema_problem(check)
        except BaseException:
            connection.close()
            raise
        if newer is not None and self.read_only:
            self.read_only_reason = self.read_only_reason or newer
        elif newer is not None:
            connection.close()
            self._refuse_or_fall_back(newer, NewerStore)
            return self._open_connection()  # read-only now
        return connection

    def _schema_problem(self, cursor: duckdb.DuckDBPyConnection) -> str | None:
        """Why this store must not be written by this code (a newer StoryScope wrote it), or
        None; a read-only open of an older store notes that it was not upgraded."""
        status = schema_status(cursor)
        if status.unknown:
            return newer_store_message(self.path, status.unknown)
        if self.read_only and status.pending and self.read_only_reason:
            self.read_only_reason += (
                f"; its schema is older than this StoryScope ({len(status.pending)} migrations"
                " not applied), so some views may be missing"
            )
        return None

    def _refuse_or_fall_back(
        self, reason: str | None, refusal: type[StoreProblem] = StoreReadOnly
    ) -> None:
        """Open read-only for `reason` when this store may fall back to it, else refuse."""
        if reason is None:
            return
        if not self.fall_back_to_read_only:
            raise refusal(reason)
        self.read_only = True
        self.read_only_reason = reason

    def _connect_with_retry(self) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.02
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=self.read_only)
            except duckdb.Error as exc:
                if not _is_lock_error(exc) or time.monotonic() >= deadline:
                    if _is_lock_error(exc):
                        raise StoreBusy(
                            f"store {self.path} is busy{_holder_hint(exc)}; gave up after "
                            f"{self.lock_timeout:.0f}s"
                        ) from exc
                    problem = explain_connect_error(self.path, exc)
                    if problem is None:
                        raise
                    raise problem from exc
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 1.6, 0.5)

    def _acquire(self) -> duckdb.DuckDBPyConnection:
        with _open_files_lock:
            entry = _open_files.get(self.path)
            if entry is None:
                entry = _OpenFile(self._open_connection(), self.read_only)
                _open_files[self.path] = entry
            elif entry.read_only and not self.read_only:
                self._refuse_or_fall_back(
                    f"store {self.path} is open read-only in this process"
                    f" ({self.read_only_reason or 'opened so by a reader'})"
                )
            if entry.closer is not None:
                entry.closer.cancel()
                entry.closer = None
            entry.users += 1
            return entry.connection

    def _release(self) -> None:
        with _open_files_lock:
            entry = _open_files.get(self.path)
            if entry is None:
                return
            entry.users -= 1
            if entry.users > 0:
                return
            if self.linger_s > 0:
                entry.closer = threading.Timer(self.linger_s, self._close_if_idle)
                entry.closer.daemon = True
                entry.closer.start()
            else:
                self._close(entry)

    def _close_if_idle(self) -> None:
        with _open_files_lock:
            entry = _open_files.get(self.path)
            if entry is not None and entry.users <= 0:
                self._close(entry)

    def _close(self, entry: _OpenFile) -> None:
        del _open_files[self.path]
        entry.connection.close()
        note_clean_close(self.path)

    @contextmanager
    def session(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor on the store for one unit of work; the file is released afterwards."""
        connection = self._acquire()
        try:
            if not self.read_only:  # a read-only store is read as it is, never migrated
                self._ensure_schema(connection)
            with _tracked(connection.cursor()) as cursor:
                yield cursor
        finally:
            self._release()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor inside one transaction: committed on success, rolled back on any error."""
        with self.session() as cursor:
            cursor.execute("BEGIN TRANSACTION")
            try:
                yield cursor
                cursor.execute("COMMIT")
            except BaseException:
                _rollback_quietly(cursor)
                raise

    def in_transaction(
        self, work: Callable[[duckdb.DuckDBPyConnection], T], conflict_retries: int = 0
    ) -> T:
        """`work(cursor)` inside one `transaction()`; its result.

        With `conflict_retries`, a transaction that DuckDB aborts because another writer changed
        the same rows (optimistic concurrency) is rolled back whole and `work` runs again, up to
        that many more times, with a short growing pause. A context manager cannot re-run its
        body, so the retrying form takes the work as a function.
        """
        for attempt in range(conflict_retries + 1):
            try:
                with self.transaction() as cursor:
                    return work(cursor)
            except duckdb.TransactionException as exc:
                if not is_conflict(exc) or attempt == conflict_retries:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")  # the loop returns or raises

    def _ensure_schema(self, connection: duckdb.DuckDBPyConnection) -> None:
        if self.path in _migrated:
            return
        from data_access.store.migrations import apply_migrations

        applied = []
        with _open_files_lock, _tracked(connection.cursor()) as cursor:
            if self.path not in _migrated:
                applied = apply_migrations(cursor)
                _migrated.add(self.path)
        # Migrations never call live code, so they leave derived caches stale (an upgraded
        # store) or unstamped (a new one): bring them up to date once, at the schema just
        # reached, each in one transaction of the store's own, outside the process-wide lock
        # (a full rollup refresh takes seconds; other threads' sessions must not wait on it).
        # Readers meanwhile see the caches stale and use the live queries.
        for hook in _after_migrations if applied else ():
            self.in_transaction(hook, conflict_retries=2)

    # -- small helpers used by the query modules ---------------------------------------
    def df(self, sql: str, params: list | tuple | dict | None = None) -> pd.DataFrame:
        """Run one bound query and return its rows as a DataFrame."""
        with self.session() as cursor:
            return cursor.execute(sql, params or []).df()

    def df_arrow(self, sql: str, params: list | tuple | dict | None = None) -> pd.DataFrame:
        """`df` through Arrow: the same frame, several times faster for results of many string
        rows (200,000 answer rows of a paper-scale store: ~50 ms against ~230 ms)."""
        with self.session() as cursor:
            return cursor.sql(sql, params=params or []).to_arrow_table().to_pandas()

    def rows(self, sql: str, params: list | tuple | dict | None = None) -> list[tuple]:
        """Run one bound query and return its rows as tuples."""
        with self.session() as cursor:
            return cursor.execute(sql, params or []).fetchall()

    def scalar(self, sql: str, params: list | tuple | dict | None = None):
        """Run one bound query and return the first column of its first row (or None)."""
        found = self.rows(sql, params)
        return found[0][0] if found else None


def _unwritable_reason(path: Path) -> str | None:
    """Why DuckDB could not open this existing store for writing, or None: the file, or the
    folder where DuckDB writes its `.wal`, is read-only on disk."""
    if not path.exists():
        return None
    if not os.access(path, os.W_OK):
        return (
            f"store {path} is read-only on disk (file mode): commands that write need it writable"
        )
    if not os.access(path.parent, os.W_OK):
        return (
            f"store {path} is in a read-only folder (DuckDB writes its .wal next to the store):"
            " commands that write need the folder writable"
        )
    return None


def _rollback_quietly(cursor: duckdb.DuckDBPyConnection) -> None:
    """Roll back after a fault without hiding it: when the fault was an I/O error (a full
    disk), DuckDB has aborted the transaction already and ROLLBACK fails with "Current
    transaction is aborted"; the caller must see the real error, not that one."""
    try:
        cursor.execute("ROLLBACK")
    except duckdb.Error:
        pass


def forget_schema_cache() -> None:
    """Make the next session re-check migrations (tests that replace store files use it)."""
    _migrated.clear()


def is_conflict(exc: BaseException) -> bool:
    """True for DuckDB's optimistic-concurrency conflict (the transaction may be retried)."""
    return "conflict" in str(exc).lower() and "transaction" in type(exc).__name__.lower()


def schema_checked(path: Path) -> bool:
    """True when this process has already brought the store at `path` to this code's schema
    (a session that may write ran on it), so opening it again migrates nothing."""
    return Path(path).resolve() in _migrated
