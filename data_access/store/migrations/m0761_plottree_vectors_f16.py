"""PlotTree node vectors move out of `embeddings` (FLOAT[], 384 x 4 bytes + list overhead)
into `plottree_vectors` as float16 BLOBs (768 bytes): the real-data demo store was mostly
these vectors. Existing vectors are converted here, in chunks; retrieval reads
the new table (data_access.tables.plottree_records).

Self-contained, as every migration is: the packing below is frozen here rather than imported
from the live `data_access.tables.vectors`, so a later change there cannot change what this
migration writes into a store it upgrades."""

import numpy as np

from data_access.store.migrations import migration

_CHUNK = 50_000
_F16 = np.dtype("<f2")  # little-endian float16, the BLOB layout `plottree_vectors` holds


def _pack_f16(vectors: np.ndarray) -> list[bytes]:
    """One float16 BLOB per row of `vectors` (`vectors.pack_f16` as it was when this migration was written)."""
    packed = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32).astype(_F16))
    return [row.tobytes() for row in packed]


@migration(761, "plottree node vectors as float16")
def compact_plottree_vectors(connection) -> None:
    connection.execute(
        """CREATE TABLE plottree_vectors (
            run_id VARCHAR NOT NULL,
            node_id VARCHAR NOT NULL,
            model VARCHAR NOT NULL,
            vector BLOB NOT NULL,             -- little-endian float16, 384 x 2 bytes for MiniLM
            PRIMARY KEY (run_id, node_id)
        )"""
    )
    keys = connection.execute(
        "SELECT run_id, item_id FROM embeddings WHERE item_kind = 'plottree_node'"
        " ORDER BY run_id, item_id"
    ).fetchall()
    for start in range(0, len(keys), _CHUNK):
        first, last = keys[start], keys[min(start + _CHUNK, len(keys)) - 1]
        table = connection.execute(
            "SELECT run_id, item_id, model, vector FROM embeddings"
            " WHERE item_kind = 'plottree_node' AND (run_id, item_id) BETWEEN (?, ?) AND (?, ?)"
            " ORDER BY run_id, item_id",
            [*first, *last],
        ).df()
        vectors = np.asarray(table["vector"].tolist(), dtype=np.float32)
        table["vector"] = _pack_f16(vectors)
        connection.register("_moved_vectors", table)
        connection.execute(
            "INSERT INTO plottree_vectors SELECT run_id, item_id, model, vector FROM _moved_vectors"
        )
        connection.unregister("_moved_vectors")
    connection.execute("DELETE FROM embeddings WHERE item_kind = 'plottree_node'")
