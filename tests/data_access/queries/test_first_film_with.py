"""The pages' default film (`film_view.first_film_with`) equals the live rule it replaced:
the first film by title with rows, a film whose current rows are gold first, now
without resolving every film's current beliefs."""

from __future__ import annotations

from data_access.queries import film_view
from tests.support.app_fixtures import build_app_fixture

VIEWS = {"scenes": "current_scenes", "beliefs": "current_beliefs"}


def _live_rule(store, table: str):
    view = VIEWS[table]
    return store.scalar(
        f"SELECT f.film_id FROM films f WHERE EXISTS (SELECT 1 FROM {view} t WHERE "
        "t.film_id = f.film_id) ORDER BY NOT EXISTS (SELECT 1 FROM " + view + " t JOIN runs r"
        " USING (run_id) WHERE t.film_id = f.film_id AND r.backend = 'gold'),"
        " f.kind = 'story', f.title, f.film_id LIMIT 1"
    )


def _gold_copy(store, film: str, seconds: int) -> None:
    """A gold run started `seconds` after (or before) the film's belief run, holding a copy of
    the film's belief rows: current when later, superseded when earlier."""
    with store.transaction() as cursor:
        old = cursor.execute(
            "SELECT any_value(run_id) FROM beliefs WHERE film_id = ?", [film]
        ).fetchone()[0]
        new = f"gold-{film}-{seconds}"
        cursor.execute(
            "INSERT INTO runs SELECT * REPLACE (? AS run_id, 'gold' AS backend,"
            " started_at + to_seconds(?) AS started_at) FROM runs WHERE run_id = ?",
            [new, seconds, old],
        )
        cursor.execute(
            "INSERT INTO beliefs SELECT * REPLACE (? AS run_id) FROM beliefs"
            " WHERE film_id = ? AND run_id = ?",
            [new, film, old],
        )


def test_default_film_equals_the_live_rule_with_and_without_gold(store):
    build_app_fixture(store)
    for table in VIEWS:
        assert film_view.first_film_with(store, table) == _live_rule(store, table)
    assert film_view.first_film_with(store, "beliefs") == "lighthouse"
    # gold rows a later run superseded do not count; current gold rows win over the title order
    _gold_copy(store, "tom-story-1", -60)
    assert film_view.first_film_with(store, "beliefs") == _live_rule(store, "beliefs")
    assert film_view.first_film_with(store, "beliefs") == "lighthouse"
    _gold_copy(store, "tom-story-1", 60)
    assert film_view.first_film_with(store, "beliefs") == _live_rule(store, "beliefs")
    assert film_view.first_film_with(store, "beliefs") == "tom-story-1"
    assert film_view.first_film_with(store, "scenes") == _live_rule(store, "scenes")
