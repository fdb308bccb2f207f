"""Numbered schema migrations, recorded in the `_migrations` table (the simonw/llm pattern).

Each module `mNNNN_<name>.py` in this package registers one or more functions with the
`@migration(number, name)` decorator. They run once, in number order, each in its own
transaction. Number ranges keep parallel work apart: 1–99 foundation, 100–199 preprocessing,
200–299 judge/metrics/jobs, 300–399 beliefs, 400–499 question generation, 500–599 StoryVideoQA
and PlotTree, 600–699 app support. Never edit an applied migration: add a new one.

A store whose `_migrations` records a number this code does not know was written by a newer
StoryScope: its schema may have changed in ways this code cannot see, so it is never migrated
or written here (`NewerStore`); `data_access.store.connection.Store` may still open it read-only.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from data_access.store.health import StoreProblem

MigrationFn = Callable[[duckdb.DuckDBPyConnection], None]


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    apply: MigrationFn


_REGISTRY: dict[int, Migration] = {}


def migration(number: int, name: str) -> Callable[[MigrationFn], MigrationFn]:
    """Register `fn` as migration `number`; numbers must be unique across the package."""

    def register(fn: MigrationFn) -> MigrationFn:
        existing = _REGISTRY.get(number)
        if existing is not None and existing.apply is not fn:
            raise RuntimeError(f"migration {number} registered twice: {existing.name} and {name}")
        _REGISTRY[number] = Migration(number, name, fn)
        return fn

    return register


def all_migrations() -> list[Migration]:
    """Every migration of the package, imported on first call, in number order."""
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("m") and module.name[1:5].isdigit():
            importlib.import_module(f"{__name__}.{module.name}")
    return [_REGISTRY[n] for n in sorted(_REGISTRY)]


class NewerStore(StoreProblem):
    """The store records migrations this code does not know: a newer StoryScope wrote it."""


class UpgradeInterrupted(Exception):
    """A Ctrl-C stopped a store upgrade; the message says where the store was left."""


@dataclass(frozen=True)
class SchemaStatus:
    """How a store's recorded migrations compare with this code's."""

    unknown: tuple[int, ...]  # recorded, but not a migration of this code (a newer StoryScope)
    pending: tuple[int, ...]  # migrations of this code the store has not had yet (an older one)


def recorded_migrations(connection: duckdb.DuckDBPyConnection) -> set[int]:
    """The migration numbers the store records (none for a new, empty store); read only."""
    try:
        rows = connection.execute("SELECT number FROM _migrations").fetchall()
    except duckdb.CatalogException:  # a new store: no table yet
        return set()
    return {row[0] for row in rows}


@functools.cache
def _known_numbers() -> frozenset[int]:
    # once per process: every store open asks (schema_status), and listing the package's
    # modules each time cost ~10% of an open
    return frozenset(step.number for step in all_migrations())


def schema_status(connection: duckdb.DuckDBPyConnection) -> SchemaStatus:
    """The store's unknown and pending migrations, read without writing anything."""
    done = recorded_migrations(connection)
    known = _known_numbers()
    return SchemaStatus(tuple(sorted(done - known)), tuple(sorted(known - done)))


def newer_store_message(path: object, unknown: tuple[int, ...]) -> str:
    """What to tell the user about a store written by a newer StoryScope."""
    numbers = ", ".join(str(n) for n in unknown)
    plural = "s" if len(unknown) > 1 else ""
    latest = max(step.number for step in all_migrations())
    return (
        f"store {path} was written by a newer StoryScope (migration{plural} {numbers} unknown to"
        f" this version, which knows up to {latest}): it is not written to or migrated here;"
        " upgrade StoryScope to write to it (read commands such as `storyscope stats` and"
        " `storyscope export`, and the app, open it read-only)"
    )


def apply_migrations(connection: duckdb.DuckDBPyConnection, up_to: int | None = None) -> list[int]:
    """Apply the migrations this store has not seen yet; return the numbers applied.

    `up_to` stops after that migration number: the store-upgrade test builds an old store so.

    Raises:
        NewerStore: the store records a migration this code does not know; nothing is written.
        UpgradeInterrupted: a Ctrl-C stopped a migration; it was rolled back, those before it
            were kept.
    """
    unknown = schema_status(connection).unknown
    if unknown:
        raise NewerStore(newer_store_message(_database_path(connection), unknown))
    connection.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " number INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied_at TIMESTAMP DEFAULT current_timestamp)"
    )
    done = {row[0] for row in connection.execute("SELECT number FROM _migrations").fetchall()}
    applied: list[int] = []
    try:
        for step in all_migrations():
            if step.number in done:
                continue
            if up_to is not None and step.number > up_to:
                break
            _apply_one(connection, step)
            applied.append(step.number)
    except BaseException as exc:
        # (around the whole loop: Python's own KeyboardInterrupt may come a moment after the
        # DuckDB statement it interrupted, while that failure is being handled)
        if not _is_interrupt(exc):
            raise
        reached = max([*done, *applied], default=None)
        raise UpgradeInterrupted(_interrupted_message(reached)) from exc
    return applied


def _apply_one(connection: duckdb.DuckDBPyConnection, step: Migration) -> None:
    connection.execute("BEGIN TRANSACTION")
    try:
        step.apply(connection)
        connection.execute(
            "INSERT INTO _migrations (number, name) VALUES (?, ?)", [step.number, step.name]
        )
    except BaseException as exc:
        _roll_back(connection, exc)
        raise
    connection.execute("COMMIT")


def _is_interrupt(exc: BaseException) -> bool:
    from data_access.store.interrupt_kinds import is_interrupt

    return is_interrupt(exc)


def _roll_back(connection: duckdb.DuckDBPyConnection, exc: BaseException) -> None:
    try:
        connection.execute("ROLLBACK")
    except duckdb.Error:
        # a Ctrl-C may interrupt the ROLLBACK too; the transaction is then rolled back when
        # the connection closes, which the interrupted command is about to do
        if not _is_interrupt(exc):
            raise


def _interrupted_message(reached: int | None) -> str:
    where = "has no migration yet" if reached is None else f"is at migration {reached}"
    return (
        f"interrupted during the store upgrade: the store {where} (each migration is all or"
        " nothing: the one in progress was rolled back, those before it kept); run the command"
        " again to finish the upgrade"
    )


def _database_path(connection: duckdb.DuckDBPyConnection) -> str:
    """The file of the connection's database (for messages)."""
    row = connection.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchone()
    return str(row[0]) if row and row[0] else "(in memory)"
