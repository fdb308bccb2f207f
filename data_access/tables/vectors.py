"""Compact vectors: float16 bytes in a BLOB (PlotTree node vectors, migration 761).

DuckDB has no half-precision type, so a vector is stored as its little-endian float16 bytes:
768 bytes for a 384-d MiniLM vector against 1,536 (plus list overhead) as FLOAT[]. MiniLM
vectors are unit length with components well inside float16's range; the rounding error
(about 1e-3 relative) leaves cosine rankings unchanged in practice (measured: docs/SCALE.md).
"""

from __future__ import annotations

import numpy as np

_F16 = np.dtype("<f2")


def pack_f16(vectors: np.ndarray) -> list[bytes]:
    """One float16 BLOB per row of `vectors`."""
    packed = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32).astype(_F16))
    return [row.tobytes() for row in packed]


def unpack_f16(blobs, dim: int | None = None) -> np.ndarray:
    """float32 rows from float16 BLOBs (all of one dimension)."""
    blobs = list(blobs)
    if not blobs:
        return np.zeros((0, dim or 0), dtype=np.float32)
    flat = np.frombuffer(b"".join(blobs), dtype=_F16)
    return flat.reshape(len(blobs), -1).astype(np.float32)
