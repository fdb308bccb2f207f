"""The catalogue rollups (migration 970): the Overview and Distributions counts of the largest
tables read a few rows while the rollups are fresh, and equal the live counts."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.importers import import_lfvqa_dir
from data_access.queries import distributions as views_distributions
from data_access.queries import film as views_film
from data_access.queries import overview as views_overview
from data_access.queries import verdicts as views_verdicts
from data_access.rollups import full as rollups
from pipelines.synth import write_synthetic_dataset

CATALOGUE_READERS = [
    (views_overview.overview_counts, ()),
    (views_overview.datasets_overview, ()),
    (views_overview.settings_table, ()),
    (views_overview.judges_table, ()),
    (views_overview.mcq_sets, ()),
    (views_distributions.mcq_facets, ()),
    (views_distributions.mcq_topic_counts, ()),
    (views_distributions.mcq_topic_counts, ("synthetic", "GOT")),
    (views_film.films_to_explore, (None,)),
    (views_film.films_to_explore, (2,)),
    (views_verdicts.judge_ids, ()),
    (views_verdicts.judge_runs, (None,)),
    (views_verdicts.answered_questions, (None,)),
    (views_verdicts.answered_questions, (None, ("Q1", "N2"), 5)),
]


def _read_all(store) -> list:
    return [fn(store, *args) for fn, args in CATALOGUE_READERS]


def _live(store) -> list:
    """The same readers with the rollups made stale (they fall back to the live counts)."""
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM rollup_state")
    assert not rollups.rollups_fresh(store)
    return _read_all(store)


def _assert_same(rolled: list, live: list) -> None:
    for (fn, args), got, want in zip(CATALOGUE_READERS, rolled, live):
        if isinstance(want, pd.DataFrame):
            sort = list(want.columns[:2])
            got = got.sort_values(sort).reset_index(drop=True)
            want = want.sort_values(sort).reset_index(drop=True)
            pd.testing.assert_frame_equal(got, want, check_dtype=False, obj=f"{fn.__name__}{args}")
        else:
            assert got == want, fn.__name__


@pytest.fixture
def synthetic_store(tmp_path, store):
    write_synthetic_dataset(tmp_path / "synth", scale="small")
    import_lfvqa_dir(store, tmp_path / "synth")
    return store


def test_catalogue_counts_equal_the_live_counts(synthetic_store):
    store = synthetic_store
    assert rollups.rollups_fresh(store)
    assert store.scalar("SELECT count(*) FROM rollup_mcq_topics") > 0
    assert store.scalar("SELECT sum(beliefs) FROM rollup_film_counts") > 0
    rolled = _read_all(store)
    _assert_same(rolled, _live(store))
    # a full refresh gives the same rows again
    rollups.refresh(store)
    assert rollups.rollups_fresh(store)
    _assert_same(_read_all(store), rolled)


def test_a_second_import_updates_the_catalogue_with_its_run(tmp_path, synthetic_store):
    store = synthetic_store
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "manifest.json").write_text(
        (tmp_path / "synth" / "manifest.json").read_text().replace("synthetic_small", "batch-2")
    )
    verdicts = pq.read_table(tmp_path / "synth" / "claim_verdicts.parquet").slice(0, 40)
    judge = pa.array(["judge-2"] * verdicts.num_rows)
    pq.write_table(verdicts.set_column(0, "judge_id", judge), batch / "claim_verdicts.parquet")
    judges = pq.read_table(tmp_path / "synth" / "judges.parquet")
    pq.write_table(
        judges.set_column(0, "judge_id", pa.array(["judge-2"])), batch / "judges.parquet"
    )
    import_lfvqa_dir(store, batch)
    assert rollups.rollups_fresh(store)  # the import's run updated the rollups in its commit
    judges_seen = views_overview.judges_table(store).set_index("judge_id")["verdicts"]
    assert judges_seen["judge-2"] == 40
    _assert_same(_read_all(store), _live(store))
