"""Compact PlotTree node vectors (migration 761): store size and retrieval accuracy,
FLOAT[] (float32, before) against float16 BLOBs (after), in one run.

1. Size: N MiniLM-sized unit vectors (`--n`, default 300,000: about the node count of the
   58 aligned videos' trees) written to two DuckDB files, one per layout, with the other
   columns of the row; file sizes after CHECKPOINT.
2. Retrieval: a real film's tree (`--store S --film F`, e.g. after `storyscope import
   storyvideoqa` and `plottree build`) or, without one, a synthetic 2-hour film's tree
   (benchmarks/bench_plottree.py); for each question (the film's MCQs, or leaf texts)
   the top-M (`--top-m`, 32) nodes by cosine with float32 vs float16 node vectors: mean
   overlap of the two top-M sets and how often the best node is the same.

Usage: python benchmarks/bench_vectors.py [--n 300000] [--store S --film F] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from data_access.tables.vectors import pack_f16, unpack_f16  # noqa: E402


def unit_rows(n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def store_sizes(n: int, tmp: Path) -> dict:
    vectors = unit_rows(n)
    ids = [f"Film-{i // 5000:03d}:L0-{i:06d}" for i in range(n)]
    sizes = {}
    for layout in ("float32_list", "float16_blob"):
        path = tmp / f"{layout}.duckdb"
        con = duckdb.connect(str(path))
        kind = "FLOAT[]" if layout == "float32_list" else "BLOB"
        con.execute(
            f"CREATE TABLE v (run_id VARCHAR, node_id VARCHAR, model VARCHAR, vector {kind})"
        )
        for start in range(0, n, 50_000):
            part = vectors[start : start + 50_000]
            column = [row.tolist() for row in part] if layout == "float32_list" else pack_f16(part)
            frame = pd.DataFrame(
                {
                    "run_id": "plottree-build-x",
                    "node_id": ids[start : start + 50_000],
                    "model": "all-MiniLM-L6-v2",
                    "vector": column,
                }
            )
            con.register("part", frame)
            con.execute("INSERT INTO v SELECT * FROM part")
            con.unregister("part")
        con.execute("CHECKPOINT")
        con.close()
        sizes[layout] = round(path.stat().st_size / 1e6, 1)
    sizes["ratio"] = round(sizes["float16_blob"] / sizes["float32_list"], 3)
    return {"n_vectors": n, "megabytes": sizes}


def _synthetic_tree():
    from pipelines.embeddings import embed_texts
    from pipelines.plottree.build import build_nodes
    from pipelines.plottree.leaves import build_leaves

    spec = importlib.util.spec_from_file_location(
        "bench_plottree", ROOT / "benchmarks" / "bench_plottree.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    leaves = build_leaves(bench.synthetic_timeline(120), 7200.0, 1.0).frame
    nodes, vectors = build_nodes(leaves, "synthetic:")
    rng = np.random.default_rng(5)
    picks = rng.choice(len(leaves), size=200, replace=False)
    questions = [f"What happens when {leaves.iloc[i].summary[:80]}?" for i in picks]
    return "synthetic 2-hour film", vectors, embed_texts(questions)


def _real_tree(store_path: Path, film: str):
    from data_access.store import Store
    from data_access.tables.plottree_records import current_tree, film_mcqs
    from pipelines.embeddings import MODEL_NAME, embed_texts

    store = Store(store_path)
    _, vectors = current_tree(store, film, MODEL_NAME)  # already float16-rounded if upgraded
    questions = film_mcqs(store, film)["question"].tolist()
    return film, vectors, embed_texts(questions)


def retrieval(vectors: np.ndarray, queries: np.ndarray, top_m: int) -> dict:
    exact = queries @ vectors.T
    compact = queries @ unpack_f16(pack_f16(vectors)).T
    overlap, same_best, tie_overlap, loss = [], [], [], []
    for e, c in zip(exact, compact):
        top_e, top_c = np.argsort(-e)[:top_m], np.argsort(-c)[:top_m]
        overlap.append(len(set(top_e) & set(top_c)) / top_m)
        same_best.append(top_e[0] == top_c[0])
        # Leaves repeat a subtitle for every second it is on screen, so many nodes tie: a
        # float16 pick is as good when its exact score is the exact M-th score or better.
        tie_overlap.append(float(np.mean(e[top_c] >= e[top_e[-1]] - 1e-6)))
        loss.append(float(e[top_e[0]] - e[top_c[0]]))
    return {
        "nodes": int(len(vectors)),
        "questions": int(len(queries)),
        "top_m": top_m,
        "mean_top_m_overlap": round(float(np.mean(overlap)), 4),
        "same_best_node": round(float(np.mean(same_best)), 4),
        "top_m_overlap_counting_ties": round(float(np.mean(tie_overlap)), 4),
        "best_node_cosine_loss_max": round(float(np.max(loss)), 6),
        "max_abs_component_error": float(np.abs(unpack_f16(pack_f16(vectors)) - vectors).max()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300_000, help="0 skips the size part")
    parser.add_argument("--store", type=Path)
    parser.add_argument("--film")
    parser.add_argument("--top-m", type=int, default=32)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sizes = None
    if args.n:
        with tempfile.TemporaryDirectory() as tmp:
            sizes = store_sizes(args.n, Path(tmp))
        print(json.dumps(sizes), flush=True)
    source, vectors, queries = (
        _real_tree(args.store, args.film) if args.store and args.film else _synthetic_tree()
    )
    result = {"source": source, **retrieval(vectors, queries, args.top_m)}
    print(json.dumps(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"size": sizes, "retrieval": result}, indent=2))


if __name__ == "__main__":
    main()
