"""One definition per rollup, read through `source`: a rollup is a cache of a live query.

Every rollup table has one SELECT that computes its rows from the store's tables and views
(`live_select`). The refresh writes that SELECT's rows into the table; a reader names the
rollup by table and reads `source(store, table)`, which is the table while the rollups are
fresh (its stamp matches the store) and the same SELECT run live otherwise. A reader thus has
one SQL whether the cache hits or misses, and the page, `storyscope metrics` and the export
agree by construction.
"""

from __future__ import annotations

from data_access.rollups.catalogue import CATALOGUE_SQL, FILM_COUNTS_LIVE_SQL
from data_access.rollups.freshness import rollups_fresh
from data_access.rollups.questions import COUNTS_LIVE_SQL, SHAPE_SQL
from data_access.rollups.sql import LIVE, ROLLUP_TABLES, rollup_select
from data_access.store import Store


def _live_selects() -> dict[str, str]:
    selects = {table: rollup_select(table, LIVE) for table in ROLLUP_TABLES}
    selects.update(CATALOGUE_SQL)
    selects["rollup_film_counts"] = FILM_COUNTS_LIVE_SQL
    selects["rollup_question_shape"] = SHAPE_SQL.format(questions="TRUE")
    selects["rollup_question_counts"] = COUNTS_LIVE_SQL
    return selects


_LIVE_SELECTS = _live_selects()
SOURCED_TABLES = tuple(_LIVE_SELECTS)


def live_select(table: str) -> str:
    """The SELECT that computes every row of rollup `table` from the store as it is now."""
    return _LIVE_SELECTS[table]


def sources(store: Store, *tables: str) -> tuple[str, ...]:
    """What to read each of `tables` FROM (checking freshness once): the rollup tables while
    the rollups are fresh, else their SELECTs as subqueries. Give each an alias where needed."""
    fresh = rollups_fresh(store)
    return tuple(table if fresh else f"({live_select(table)})" for table in tables)


def source(store: Store, table: str) -> str:
    """What to read rollup `table` FROM: the table while fresh, else its SELECT run live."""
    return sources(store, table)[0]
