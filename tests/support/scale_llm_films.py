"""Films and LLM batches of the scaled-out LLM tests."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store
from pipelines.scale import make_executor
from tests.support.scale_rows import belief_rows, fresh_store, write_rules_film

FILMS = ["llm-a", "llm-b"]


def llm_belief_rows(store: Store) -> dict[str, pd.DataFrame]:
    rows = belief_rows(store)
    cols = "film_id, holder, scene_index, about, claim"
    rows["meta_beliefs"] = store.df(f"SELECT {cols} FROM current_meta_beliefs ORDER BY {cols}")
    return rows


def store_with_films(tmp_path, name: str) -> Store:
    store = fresh_store(tmp_path, name)
    for film in FILMS:
        write_rules_film(store, film)
    return store


def annotate_many(store, name, config, **options):
    from pipelines.beliefs.llm.scaled import annotate_films_llm

    executor = make_executor(name)
    try:
        return annotate_films_llm(store, FILMS, executor, config, **options)
    finally:
        executor.close()


def batch_calls(store: Store) -> pd.DataFrame:
    return store.df(
        "SELECT c.item_id, c.cached, c.status, c.attempts,"
        " c.prompt_tokens + c.completion_tokens AS tokens"
        " FROM llm_calls c JOIN runs r USING (run_id) WHERE r.step = 'beliefs.annotate'"
    )
