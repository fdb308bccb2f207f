"""The sample film ingested as `storyscope demo` does (step 30) with its hand-made gold imported
(step 46: questions, rubrics, beliefs): the store the settings and answering tests answer in."""

from __future__ import annotations

GOLD_FILM_ID = "the-keepers-ledger"


def with_gold_film(store):
    """`store` with The Keeper's Ledger and its gold; returns the store."""
    from data_access.importers.gold import import_gold
    from pipelines.demo import step_30_sample_film, step_46_gold

    step_30_sample_film.run(store, None, lambda m: None)
    import_gold(store, step_46_gold.GOLD_DIR)
    return store
