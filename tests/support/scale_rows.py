"""Rows the scaled-out pipelines wrote, read back to compare a local run with a Ray run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from data_access.store import Store, append_rows
from data_access.tables.runs import RunSpec


def fresh_store(tmp_path, name: str) -> Store:
    handle = Store(tmp_path / f"{name}.duckdb", lock_timeout=10)
    with handle.session():
        pass
    return handle


def tree_rows(store: Store, film_ids) -> tuple[pd.DataFrame, np.ndarray]:
    from data_access.tables.plottree_records import current_tree
    from pipelines.embeddings import MODEL_NAME

    frames, vectors = zip(*(current_tree(store, f, MODEL_NAME) for f in film_ids))
    frame = pd.concat(frames, ignore_index=True).drop(columns=["run_id"], errors="ignore")
    return frame, np.vstack(vectors)


def verdict_rows(store: Store, run_id: str) -> pd.DataFrame:
    from data_access.tables.judging import verdicts_of_run

    frame = verdicts_of_run(store, run_id)
    keep = ["answer_id", "claim_id", "verdict", "rationale"]
    return frame[[c for c in keep if c in frame]].sort_values(keep[:2]).reset_index(drop=True)


def write_rules_film(store: Store, film_id: str) -> None:
    from data_access.tables import belief_records
    from data_access.tables.runs import finish_run, insert_run
    from tests.support.rules_film import LINES, LOCATIONS

    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("preprocess.film", backend="fixture"))
        belief_records.ensure_films(
            cursor,
            [{"film_id": film_id, "dataset_id": "fixture", "title": film_id, "kind": "film"}],
            run_id,
        )
        append_rows(
            cursor,
            "scenes",
            [
                {"film_id": film_id, "scene_index": i, "location": loc, "time_source": "none"}
                for i, loc in LOCATIONS.items()
            ],
            belief_records.COLUMNS["scenes"],
            fixed={"run_id": run_id},
        )
        lines = [
            {
                "film_id": film_id,
                "line_index": n,
                "scene_index": s,
                "kind": k,
                "character": c,
                "parenthetical": p,
                "text": t,
            }
            for n, (s, k, c, p, t) in enumerate(LINES)
        ]
        append_rows(
            cursor,
            "script_lines",
            lines,
            belief_records.COLUMNS["script_lines"],
            fixed={"run_id": run_id},
        )
        finish_run(cursor, run_id)


def belief_rows(store: Store) -> dict[str, pd.DataFrame]:
    tables = {
        "presence": "film_id, scene_index, character, status",
        "beliefs": "film_id, belief_id, holder, scene_index, kind, content",
        "scene_events": "film_id, scene_index, ord, event_id, description",
    }
    return {
        table: store.df(f"SELECT {cols} FROM current_{table} ORDER BY {cols}")
        for table, cols in tables.items()
    }


def summary_rows(store: Store, films) -> pd.DataFrame:
    from data_access.tables.scene_summaries import current_summaries

    return pd.concat(
        [current_summaries(store, f).assign(film_id=f) for f in films], ignore_index=True
    )


def scripted_summary(body: dict, number: int) -> str:
    text = body["messages"][-1]["content"]
    return json.dumps({"summary": f"A scene of {len(text)} characters."})
