"""Store access for PlotTree (StoryVideoQA §5): a film's timeline in, nodes and vectors out.

Node vectors live in `plottree_vectors` as float16 BLOBs (migration 761, data_access.tables.vectors;
node ids are globally unique because they start with the film id), so the PlotTree page's
retrieval preview reads them too.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from data_access.store import Store, append_table
from data_access.tables.mcq import insert_run_rows
from data_access.tables.vectors import pack_f16, unpack_f16

NODE_COLUMNS = [
    "film_id",
    "node_id",
    "parent_id",
    "level",
    "start_s",
    "end_s",
    "leaf_indices",
    "keyframes",
    "summary",
    "summary_backend",
    "children",
    "characters",
]


def film_row(store: Store, film_id: str) -> dict | None:
    """The film's row (title, kind, runtime_s, video_path, fps), or None."""
    frame = store.df("SELECT * FROM films WHERE film_id = ?", [film_id])
    return None if frame.empty else frame.iloc[0].to_dict()


def films_with_timeline(store: Store, dataset_id: str | None = None) -> pd.DataFrame:
    """Films that have current subtitles (what a text-only PlotTree needs), with cue counts;
    only those of `dataset_id` when given."""
    return store.df(
        "SELECT f.film_id, f.title, f.kind, f.runtime_s, count(*) AS cues"
        " FROM films f JOIN current_subtitles s USING (film_id)"
        " WHERE ? IS NULL OR f.dataset_id = ?"
        " GROUP BY ALL ORDER BY f.kind, f.film_id",
        [dataset_id, dataset_id],
    )


def film_timeline(store: Store, film_id: str) -> dict[str, pd.DataFrame]:
    """Current subtitles, script lines and scenes of one film, in order."""
    return {
        "subtitles": store.df(
            "SELECT cue_index, start_s, end_s, text, matched_line FROM current_subtitles"
            " WHERE film_id = ? ORDER BY start_s, cue_index",
            [film_id],
        ),
        "lines": store.df(
            "SELECT line_index, scene_index, kind, character, text, start_s, end_s"
            " FROM current_script_lines WHERE film_id = ? ORDER BY line_index",
            [film_id],
        ),
        "scenes": store.df(
            "SELECT scene_index, heading, location, start_s, end_s FROM current_scenes"
            " WHERE film_id = ? ORDER BY scene_index",
            [film_id],
        ),
    }


def insert_tree(
    cursor: duckdb.DuckDBPyConnection,
    nodes: pd.DataFrame,
    vectors: np.ndarray,
    model: str,
    run_id: str,
) -> int:
    """Write a tree's nodes (NODE_COLUMNS) and their vectors under one run."""
    frame = nodes[NODE_COLUMNS].copy()
    frame["run_id"] = run_id
    append_table(cursor, "plottree_nodes", frame)
    packed = pd.DataFrame(
        {
            "run_id": run_id,
            "node_id": nodes["node_id"].to_numpy(),
            "model": model,
            "vector": pack_f16(vectors),
        }
    )
    append_table(cursor, "plottree_vectors", packed)
    return len(frame)


def current_tree(store: Store, film_id: str, model: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The film's current tree nodes and their stored vectors (rows aligned)."""
    frame = store.df(
        "SELECT n.node_id, n.parent_id, n.level, n.start_s, n.end_s, n.summary,"
        " n.summary_backend, n.run_id, e.vector"
        " FROM current_plottree_nodes n JOIN plottree_vectors e"
        "   ON e.run_id = n.run_id AND e.node_id = n.node_id"
        " WHERE n.film_id = ? AND e.model = ? ORDER BY n.level, n.start_s, n.node_id",
        [film_id, model],
    )
    if frame.empty:
        return frame, np.zeros((0, 0), dtype=np.float32)
    return frame, unpack_f16(frame.pop("vector"))


def insert_retrievals(cursor: duckdb.DuckDBPyConnection, rows: list[dict], run_id: str) -> int:
    """Write retrieval records (see m0500) under one run."""
    return insert_run_rows(cursor, "plottree_retrievals", rows, run_id)


def film_mcqs(store: Store, film_id: str) -> pd.DataFrame:
    """The MCQs asked about one film (mcq_questions.vid = film_id)."""
    return store.df(
        "SELECT mcq_id, question, choices, option FROM mcq_questions WHERE vid = ?"
        " ORDER BY qid, mcq_id",
        [film_id],
    )
