"""PlotTree node vectors stored as float16 (migration 761): round trip, retrieval unchanged,
and an older store's FLOAT[] vectors upgraded in place."""

from __future__ import annotations

import shutil

import numpy as np

from data_access.store import Store
from data_access.tables.plottree_records import current_tree
from data_access.tables.vectors import pack_f16, unpack_f16


def _unit_rows(n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_float16_round_trip_keeps_vectors_and_top_m_retrieval():
    nodes, queries = _unit_rows(2000), _unit_rows(50, seed=1)
    packed = pack_f16(nodes)
    assert len(packed[0]) == 384 * 2
    restored = unpack_f16(packed)
    assert restored.dtype == np.float32 and np.abs(restored - nodes).max() < 1e-3
    exact, compact = queries @ nodes.T, queries @ restored.T
    top = 32
    overlap = [
        len(set(np.argsort(-e)[:top]) & set(np.argsort(-c)[:top])) / top
        for e, c in zip(exact, compact)
    ]
    assert np.mean(overlap) > 0.97  # random vectors are the hard case: near-ties everywhere


def test_an_older_store_moves_its_node_vectors_to_float16(store_path, tmp_path):
    from tests.support.plottree_film import write_fixture_film

    store = Store(store_path)
    write_fixture_film(store, "film-a")
    vectors = _unit_rows(3, seed=2)
    with store.transaction() as cursor:
        run = "plottree-build-old"
        cursor.execute(
            "INSERT INTO runs (run_id, step, status) VALUES (?, 'plottree.build', 'finished')",
            [run],
        )
        for i, vector in enumerate(vectors):
            cursor.execute(
                "INSERT INTO plottree_nodes (film_id, node_id, level, start_s, end_s, summary,"
                " run_id) VALUES ('film-a', ?, 0, ?, ?, 's', ?)",
                [f"film-a:L0-{i}", float(i), float(i + 1), run],
            )
            cursor.execute(
                "INSERT INTO embeddings (run_id, item_kind, item_id, model, vector)"
                " VALUES (?, 'plottree_node', ?, 'all-MiniLM-L6-v2', ?)",
                [run, f"film-a:L0-{i}", vector.tolist()],
            )
        # Make the store look like one written before migration 761.
        cursor.execute("DROP TABLE plottree_vectors")
        cursor.execute("DELETE FROM _migrations WHERE number = 761")
    # Opened under another path, the file is checked for migrations again (as a user's old
    # store would be by a new release).
    old_copy = tmp_path / "old.duckdb"
    shutil.copyfile(store_path, old_copy)
    upgraded = Store(old_copy)
    frame, restored = current_tree(upgraded, "film-a", "all-MiniLM-L6-v2")
    assert list(frame["node_id"]) == [f"film-a:L0-{i}" for i in range(3)]
    assert np.abs(restored - vectors).max() < 1e-3
    left = upgraded.scalar("SELECT count(*) FROM embeddings WHERE item_kind = 'plottree_node'")
    assert left == 0
