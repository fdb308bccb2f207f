"""Queries of the PlotTree page: films with a tree, one film's nodes, node embeddings."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store
from data_access.tables.vectors import unpack_f16


def films_with_tree(store: Store) -> pd.DataFrame:
    """Films that have a current PlotTree, with node counts and depth."""
    return store.df(
        "SELECT n.film_id, f.title, count(*) AS nodes, max(n.level) AS top_level"
        " FROM current_plottree_nodes n LEFT JOIN films f USING (film_id)"
        " GROUP BY ALL ORDER BY f.title"
    )


def tree_nodes(store: Store, film_id: str) -> pd.DataFrame:
    """Every node of a film's current tree (level 0 = leaves)."""
    return store.df(
        "SELECT node_id, parent_id, level, start_s, end_s, summary, summary_backend,"
        " len(coalesce(leaf_indices, [])) AS leaves, array_to_string(coalesce(characters, []), ', "
        "') AS characters,"
        " array_to_string(coalesce(children, []), ', ') AS children, run_id"
        " FROM current_plottree_nodes WHERE film_id = ? ORDER BY level DESC, start_s, node_id",
        [film_id],
    )


def node_embeddings(store: Store, film_id: str, model: str) -> pd.DataFrame:
    """Stored embeddings of a film's current tree nodes for one model (latest run per node);
    `vector` holds float32 arrays decoded from the float16 store (data_access.tables.vectors)."""
    frame = store.df(
        """
        SELECT e.node_id, arg_max(e.vector, r.started_at) AS vector
        FROM plottree_vectors e JOIN runs r USING (run_id)
        WHERE e.model = ? AND r.status = 'finished'
          AND e.node_id IN (SELECT node_id FROM current_plottree_nodes WHERE film_id = ?)
        GROUP BY e.node_id
        """,
        [model, film_id],
    )
    frame["vector"] = list(unpack_f16(frame["vector"]))
    return frame


def tree_skeleton(store: Store, film_id: str) -> pd.DataFrame:
    """The shape of a film's current tree without its texts (a feature film has ~8,000 nodes
    whose leaf summaries are most of the bytes): node_id, parent_id, level, start_s, end_s,
    leaves; top level first, then by time."""
    return store.df(
        "SELECT node_id, parent_id, level, start_s, end_s,"
        " len(coalesce(leaf_indices, [])) AS leaves"
        " FROM current_plottree_nodes WHERE film_id = ? ORDER BY level DESC, start_s, node_id",
        [film_id],
    )


def node_texts(store: Store, film_id: str, node_ids: tuple[str, ...]) -> pd.DataFrame:
    """Time span, summary, its backend and the characters of the given nodes of a film's current
    tree."""
    return store.df(
        "SELECT node_id, start_s, end_s, summary, summary_backend,"
        " array_to_string(coalesce(characters, []), ', ') AS characters"
        " FROM current_plottree_nodes WHERE film_id = ? AND list_contains(?, node_id)",
        [film_id, list(node_ids)],
    )


def find_nodes(store: Store, film_id: str, text: str, limit: int = 50) -> pd.DataFrame:
    """Nodes whose summary contains `text` (case-insensitive, literal), earliest first, with the
    total number of matches in `matches`."""
    return store.df(
        "SELECT node_id, level, start_s, end_s, summary, count(*) OVER () AS matches"
        " FROM current_plottree_nodes"
        " WHERE film_id = ? AND contains(lower(coalesce(summary, '')), lower(?))"
        " ORDER BY start_s, level DESC, node_id LIMIT ?",
        [film_id, text, limit],
    )
