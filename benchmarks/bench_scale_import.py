"""Import of a large synthetic dataset (`synth --scale 10x`, ~90M rows) on this machine.

For one dataset folder, in one run: DuckDB's raw load of the same files (the baseline of
`bench_import.py`: `CREATE TABLE t AS SELECT * FROM read_parquet(...)`, no checks, no keys), then
`import lfvqa` into a fresh migrated store (validation, insert, rollups, COMMIT). Each runs in
its own child process, so each reports its own peak memory (ru_maxrss) beside its wall and CPU
seconds (the child's, all DuckDB threads) and the file size it leaves. The load average is read
before and after each.

Usage: python benchmarks/bench_scale_import.py --data DIR --store PATH [--json OUT]
(the store is replaced; the raw database is written beside it and deleted afterwards)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _stage(stage: str, data: Path, db: Path) -> dict:
    """Run one stage in this process; return its wall / CPU seconds and peak memory."""
    from benchmarks.bench_import import fresh_store, raw_load

    if stage == "raw":
        wall, cpu = time.perf_counter(), time.process_time()
        raw_load(data, "parquet", db)
    else:
        from data_access.importers import import_lfvqa_dir

        store = fresh_store(db)  # schema creation is not part of the import
        wall, cpu = time.perf_counter(), time.process_time()
        import_lfvqa_dir(store, data)
    return {
        "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _run_child(stage: str, data: Path, db: Path) -> dict:
    load_before = os.getloadavg()[0]
    command = [sys.executable, __file__, "--stage", stage, "--data", str(data), "--store", str(db)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    size = db.stat().st_size + sum(p.stat().st_size for p in db.parent.glob(db.name + ".wal"))
    return dict(
        result,
        file_mb=round(size / 2**20),
        load_before=round(load_before, 1),
        load_after=round(os.getloadavg()[0], 1),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--stage", choices=["raw", "import"], help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.stage:  # a child: one stage, its figures as the last line
        print(json.dumps(_stage(args.stage, args.data, args.store)))
        return
    raw_db = args.store.with_name(args.store.stem + "-raw.duckdb")
    data_mb = sum(p.stat().st_size for p in args.data.iterdir()) / 2**20
    raw = _run_child("raw", args.data, raw_db)
    raw_db.unlink()
    ours = _run_child("import", args.data, args.store)
    result = {
        "data_mb": round(data_mb),
        "raw": raw,
        "import": ours,
        "ratio_wall": round(ours["wall_s"] / raw["wall_s"], 2),
        "ratio_cpu": round(ours["cpu_s"] / raw["cpu_s"], 2),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
