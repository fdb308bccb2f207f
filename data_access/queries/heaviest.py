"""The heaviest view of each page in a store, for the page benchmark (benchmarks/bench_pages.py):
the film with the largest PlotTree, with the most belief records, with the most questions."""

from __future__ import annotations

from data_access.store import Store


def heaviest_views(store: Store) -> dict[str, str | None]:
    """Film ids: `tree` (most PlotTree nodes), `beliefs` (most belief records), `questions`
    (most open-ended questions); None where the store has none."""

    def top(sql: str) -> str | None:
        rows = store.rows(sql)
        return rows[0][0] if rows else None

    return {
        "tree": top(
            "SELECT film_id FROM current_plottree_nodes GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
        ),
        "beliefs": top(
            "SELECT film_id FROM current_beliefs GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
        ),
        "questions": top("SELECT film_id FROM questions GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"),
    }


def top_holders(store: Store, film_id: str, n: int = 2) -> list[str]:
    """The `n` characters with the most belief records in a film."""
    rows = store.rows(
        "SELECT holder FROM current_beliefs WHERE film_id = ? GROUP BY 1"
        " ORDER BY count(*) DESC, holder LIMIT ?",
        [film_id, n],
    )
    return [r[0] for r in rows]
