"""Numbered schema migrations, recorded in the `_migrations` table (the simonw/llm pattern).

Each module `mNNNN_<name>.py` in this package registers one or more functions with the
`@migration(number, name)` decorator. They run once, in number order, each in its own
transaction. Number ranges keep parallel work apart: 1–99 foundation, 100–199 preprocessing,
200–299 judge/metrics/jobs, 300–399 beliefs, 400–499 question generation, 500–599 StoryVideoQA
and PlotTree, 600–699 app support. Never edit an applied migration: add a new one.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

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


def apply_migrations(connection: duckdb.DuckDBPyConnection, up_to: int | None = None) -> list[int]:
    """Apply the migrations this store has not seen yet; return the numbers applied.

    `up_to` stops after that migration number: the store-upgrade test builds an old store so.
    """
    connection.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " number INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied_at TIMESTAMP DEFAULT current_timestamp)"
    )
    done = {row[0] for row in connection.execute("SELECT number FROM _migrations").fetchall()}
    applied = []
    for step in all_migrations():
        if step.number in done:
            continue
        if up_to is not None and step.number > up_to:
            break
        connection.execute("BEGIN TRANSACTION")
        try:
            step.apply(connection)
            connection.execute(
                "INSERT INTO _migrations (number, name) VALUES (?, ?)", [step.number, step.name]
            )
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
        applied.append(step.number)
    return applied
