"""Which runs wrote the belief records a page shows (Belief timelines names its backend)."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def belief_sources(store: Store, film_id: str) -> pd.DataFrame:
    """The runs behind a film's current belief records, the largest first.

    Columns: backend, step, model, run_id, started_at, beliefs.
    """
    return store.df(
        """
        SELECT r.backend, r.step, r.model, r.run_id, r.started_at, count(*)::INT AS beliefs
        FROM current_beliefs b JOIN runs r USING (run_id)
        WHERE b.film_id = ?
        GROUP BY ALL ORDER BY beliefs DESC, r.started_at DESC
        """,
        [film_id],
    )
