"""The one check a rollup needs: the table holds exactly the rows its definition computes live.

Readers read a rollup only through `data_access.rollups.source` (the table while fresh, its
SELECT live otherwise), so a reader cannot disagree with itself; what can go wrong is a refresh
(full or incremental) that leaves a table holding other rows than its SELECT gives now.
"""

from __future__ import annotations

import pandas as pd

from data_access import rollups
from data_access.rollups.source import SOURCED_TABLES, live_select


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(list(frame.columns), na_position="first").reset_index(drop=True)


def assert_rollups_hold_their_definitions(store, tables=SOURCED_TABLES) -> None:
    """Every rollup in `tables` is fresh and holds the rows of its SELECT run live now."""
    assert rollups.rollups_fresh(store)
    with store.session() as cursor:
        for table in tables:
            stored = cursor.execute(f"SELECT * FROM {table}").df()
            live = cursor.execute(f"SELECT * FROM ({live_select(table)})").df()
            assert sorted(live.columns) == sorted(stored.columns), table
            pd.testing.assert_frame_equal(
                _sorted(stored),
                _sorted(live[list(stored.columns)]),
                check_dtype=False,
                check_exact=False,
                rtol=1e-12,
                obj=table,
            )
