"""Store benchmark at the papers' scale (issue 2).

1. Ingest: `storyscope import lfvqa` (full validation, one transaction) of the paper-scale
   synthetic dataset, against DuckDB's own bulk load of the same files into a fresh database
   (`CREATE TABLE t AS SELECT * FROM read_parquet(...)`, no checks) measured in the same run.
   Target: ratio ≤ 2.
2. Query latency of the store's main query functions on the ingested store as the app makes
   them (a Store lingering 0.25 s after use, pages/common.py), median / p95 over repetitions, beside
   a cold open per call (CLI) and the same call while the file is already held (the baseline),
   so the ratio shows what the open-per-unit-of-work design costs. Target: median ≤ 100 ms.

Usage: python benchmarks/bench_store.py [--data DIR] [--reps N] [--json OUT]
(writes the synthetic dataset to a temp folder when --data is not given).
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.store import Store  # noqa: E402

# (module, function, args) — the query functions pages call on load. Domain modules are
# included when they exist in this checkout.
QUERY_CALLS = [
    ("data_access.stats", "store_version", ()),
    ("data_access.views_overview", "overview_counts", ()),
    ("data_access.views_overview", "datasets_overview", ()),
    ("data_access.views_overview", "questions_by_type_status", ()),
    ("data_access.views_overview", "settings_table", ()),
    ("data_access.views_overview", "judges_table", ()),
    ("data_access.views_overview", "mcq_sets", ()),
    ("data_access.views_overview", "recent_runs", ()),
    ("data_access.stats", "store_stats", ()),
]


def bulk_load_baseline(data: Path, db_path: Path) -> float:
    """Seconds for DuckDB to load every table file into a fresh database without checks."""
    start = time.perf_counter()
    con = duckdb.connect(str(db_path))
    for file in sorted(data.glob("*.parquet")):
        con.execute(f"CREATE TABLE {file.stem} AS SELECT * FROM read_parquet(?)", [str(file)])
    for file in sorted(data.glob("*.jsonl")):
        con.execute(
            f"CREATE TABLE {file.stem} AS SELECT * FROM read_json(?, format='newline_delimited')",
            [str(file)],
        )
    con.close()
    return time.perf_counter() - start


def storyscope_ingest(data: Path, store: Store) -> float:
    """Seconds for the validated, transactional import of the same files."""
    from data_access.importers import import_lfvqa_dir

    start = time.perf_counter()
    import_lfvqa_dir(store, data)
    return time.perf_counter() - start


def _time_calls(fn, store, args, reps: int) -> list[float]:
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(store, *args)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def query_latencies(store: Store, reps: int) -> list[dict]:
    """Median/p95 per query function: cold (open per call) and warm (file already open)."""
    rows = []
    for module_name, fn_name, args in QUERY_CALLS:
        try:
            fn = getattr(importlib.import_module(module_name), fn_name)
        except (ImportError, AttributeError):
            continue
        fn(store, *args)  # warm the OS page cache once
        cold = _time_calls(fn, store, args, reps)
        app_store = Store(store.path, linger_s=0.25)  # as pages/common.py opens it
        app = _time_calls(fn, app_store, args, reps)
        with store.session():  # holding a session keeps the file open for the inner calls
            warm = _time_calls(fn, store, args, reps)
        time.sleep(0.5)  # let the app store's lingering connection close
        rows.append(
            {
                "query": f"{module_name.split('.')[-1]}.{fn_name}",
                "median_ms": statistics.median(app),
                "p95_ms": _p95(app),
                "cold_median_ms": statistics.median(cold),
                "warm_median_ms": statistics.median(warm),
                "ratio_vs_warm": statistics.median(app) / max(statistics.median(warm), 1e-6),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", type=Path, help="paper-scale dataset folder (default: generate one)"
    )
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--json", type=Path, help="also write the results here")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        data = options.data
        if data is None:
            from pipelines.synth import write_synthetic_dataset

            data = tmp_path / "synth"
            print("writing the paper-scale synthetic dataset ...", flush=True)
            write_synthetic_dataset(data, scale="paper")
        raw = bulk_load_baseline(data, tmp_path / "raw.duckdb")
        store = Store(tmp_path / "store.duckdb", lock_timeout=600)
        with store.session():
            pass  # schema creation is not part of the ingest
        ours = storyscope_ingest(data, store)
        result = {
            "ingest": {"raw_bulk_load_s": raw, "storyscope_import_s": ours, "ratio": ours / raw},
            "queries": query_latencies(store, options.reps),
        }
    print(
        f"ingest: DuckDB bulk load {raw:.2f} s, storyscope import (validated) {ours:.2f} s, ratio "
        f"{ours / raw:.2f}"
    )
    print(
        f"{'query':<36}{'app median':>11}{'app p95':>9}{'cold open':>10}{'warm':>8}{'app/warm':>9}"
    )
    for row in result["queries"]:
        print(
            f"{row['query']:<36}{row['median_ms']:>11.1f}{row['p95_ms']:>9.1f}"
            f"{row['cold_median_ms']:>10.1f}{row['warm_median_ms']:>8.1f}{row['ratio_vs_warm']:>9.2f}"
        )
    if options.json:
        options.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
