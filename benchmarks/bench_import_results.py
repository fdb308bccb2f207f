"""Import speed of `import results` against the harness's own reader.

Two files of `--n` samples (100k by default), built to their writers' code
(tests/support/harness_fixtures.py): an lmms-eval `--log_samples` file of open-ended answers and
an inspect_ai `.eval` log of multiple-choice answers. For each, every rep runs in fresh child
processes, back to back so the machine's load hits both alike:

- baseline: the harness's reader over the same file: `pandas.read_json(lines=True)` for the
  lmms-eval JSONL, `inspect_ai.log.read_eval_log` for the inspect log;
- import: `import_results` into a copy of a store holding the questions, end to end (read,
  link, write, the rollup update of the finished run, COMMIT).

`ratio` is the median over reps of each rep's import / baseline seconds (target ≤ 3x); peak
memory is each child's ru_maxrss (the whole process: interpreter, libraries, DuckDB). The load
average is printed with the figures: on a shared machine wall time mostly measures neighbours.

Usage: python benchmarks/bench_import_results.py [--n 100000] [--reps 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# -- children: each measures one thing in its own process ----------------------------------------
def _seed(work: Path, n: int) -> None:
    from data_access.store import Store
    from tests.support import harness_fixtures as hf

    hf.seed_store(Store(work / "seeded.duckdb"), work / "seed", n_questions=n, n_mcqs=n)
    hf.write_lmms_eval(work / "lmms", hf.many_lmms_lines(n, n))
    hf.write_big_inspect_log(work / "big.eval", n)


def _baseline(path: Path) -> int:
    if path.suffix == ".eval":
        from inspect_ai.log import read_eval_log

        return len(read_eval_log(str(path)).samples)
    import pandas as pd

    return len(pd.read_json(path, lines=True))


def _import(path: Path, store_file: Path) -> int:
    from data_access.store import Store
    from pipelines.results import import_results

    return import_results(Store(store_file), path).n_matched


def _import_libraries(path: Path) -> None:
    import pandas  # noqa: F401

    import pipelines.results  # noqa: F401

    if path.suffix == ".eval":
        import inspect_ai.log  # noqa: F401


def child(kind: str, path: Path, store_file: Path | None) -> None:
    if kind == "seed":  # path is the work folder, store_file the sample count
        _seed(path, int(str(store_file)))
        print(json.dumps({"seeded": True}))
        return
    _import_libraries(path)  # timed: the read, not the interpreter loading the libraries
    started = time.perf_counter()
    n = _baseline(path) if kind == "baseline" else _import(path, store_file)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "n": n}))


# -- the parent --------------------------------------------------------------------------------
def _run_child(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True,
        env=env,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _measure(name: str, reader: str, path: Path, work: Path, reps: int) -> dict:
    runs = []
    for rep in range(reps):
        store_file = work / f"rep{rep}-{name}.duckdb"
        shutil.copy(work / "seeded.duckdb", store_file)
        base = _run_child("baseline", str(path), "-")
        imported = _run_child("import", str(path), str(store_file))
        store_file.unlink()
        runs.append((base, imported))
        load = os.getloadavg()[0]
        print(f"  {name} rep {rep}: baseline {base['seconds']:.2f} s,"
              f" import {imported['seconds']:.2f} s, load {load:.1f}", flush=True)  # fmt: skip
    return {
        "file": path.name,
        "mb": round(path.stat().st_size / 1e6, 1),
        "baseline": reader,
        "baseline_s": min(b["seconds"] for b, _ in runs),
        "import_s": min(i["seconds"] for _, i in runs),
        "ratio": statistics.median(i["seconds"] / b["seconds"] for b, i in runs),
        "baseline_peak_mb": max(b["peak_mb"] for b, _ in runs),
        "import_peak_mb": max(i["peak_mb"] for _, i in runs),
        "matched": runs[0][1]["n"],
        "load_avg_1m": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, path, store_file = args.child
        return child(kind, Path(path), None if store_file == "-" else Path(store_file))
    work = Path(tempfile.mkdtemp(prefix="bench_results_"))
    try:
        started = time.perf_counter()
        _run_child("seed", str(work), str(args.n))
        print(f"seeded {args.n:,} questions + MCQs and wrote both files in"
              f" {time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        lmms = next((work / "lmms").glob("*/*_samples_*.jsonl"))
        figures = [
            _measure("lmms-eval", "pandas.read_json(lines=True)", lmms, work, args.reps),
            _measure("inspect", "inspect_ai.log.read_eval_log", work / "big.eval", work, args.reps),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in figures:
        print(f"{f['file'][:40]:<40} {f['mb']:>6} MB  {f['baseline']:<30} {f['baseline_s']:7.2f} s"
              f"  import {f['import_s']:7.2f} s  ratio {f['ratio']:.2f}x  peak"
              f" {f['baseline_peak_mb']:.0f} / {f['import_peak_mb']:.0f} MB"
              f"  (load {f['load_avg_1m']:.1f})")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
