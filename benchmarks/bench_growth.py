"""Cost growth: each heavy pipeline at three input sizes, and the exponent k of
cost ~ n^k fitted on log-log (least squares over the three points).

- PlotTree: leaves (a synthetic film of M minutes at 1 fps; `build_nodes`, offline).
- Judge (lexical backend): answers (`lexical_batch` over the tests' rubric slice, repeated).
- Difficulty: questions (BERTScore on MiniLM + the set-wide normalisation).
- PlotTree k-means alone: leaves (level 0 on story-like vectors, 3,600-14,400 leaves).
- Import (`import lfvqa`, Parquet and JSONL, end to end with the rollup update): rows (the
  synthetic paper-scale shapes with fewer films / questions / MCQs, benchmarks/bench_import.py),
  against DuckDB's raw load of the same files.

CPU seconds (this process) are fitted, not wall: on a shared machine wall time mostly measures
the neighbours. k <= 1 is linear; n log n shows as about 1.1 over a 4x range; more is a defect.
Each point is the best of `--reps` runs, the same work at every size, so the ratio between
sizes is what is compared.

Usage: python benchmarks/bench_growth.py [--only plottree,kmeans,kmeans-full,judge,
    difficulty,import]
    [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("STORYSCOPE_TORCH_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cpu_of(fn, reps: int = 1) -> tuple[float, float]:
    """(best CPU seconds, its wall seconds) of `fn()` over `reps` runs."""
    best = None
    for _ in range(reps):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        sample = (time.process_time() - cpu, time.perf_counter() - wall)
        best = sample if best is None or sample[0] < best[0] else best
    return best


def exponent(sizes: list[int], costs: list[float]) -> float:
    """Slope of log(cost) on log(size)."""
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])


def report(name: str, unit: str, sizes: list[int], points: list[tuple[float, float]]) -> dict:
    result = {
        "pipeline": name,
        "unit": unit,
        "sizes": sizes,
        "cpu_s": [round(c, 3) for c, _ in points],
        "wall_s": [round(w, 3) for _, w in points],
        "exponent_cpu": round(exponent(sizes, [c for c, _ in points]), 2),
        "load_avg": os.getloadavg()[0],
    }
    print(json.dumps(result), flush=True)
    return result


def plottree(reps: int) -> dict:
    bench = _sibling("bench_plottree")
    from pipelines.embeddings import embed_texts
    from pipelines.plottree.build import build_nodes
    from pipelines.plottree.leaves import build_leaves

    embed_texts(["warm up the model"])
    sizes, points = [], []
    for minutes in (15, 30, 60):
        leaves = build_leaves(bench.synthetic_timeline(minutes), minutes * 60.0, 1.0).frame
        sizes.append(len(leaves))
        points.append(cpu_of(lambda leaves=leaves: build_nodes(leaves, "f:"), reps))
    return report("plottree", "leaves", sizes, points)


def judge(reps: int) -> dict:
    from pipelines.judge.run import lexical_batch
    from tests.support.lfvqa_rows import ANSWERS, CLAIMS

    def items(n: int) -> list[tuple]:
        base = [
            (f"{q}-{s}", answer, None, [(f"{q}-c{i}", t) for i, t in enumerate(CLAIMS[q])])
            for (q, s), answer in ANSWERS.items()
        ]
        # distinct texts per copy, so the embedder's per-call dedupe does not flatter growth
        return [
            (f"{k}-{a}", f"{text} (take {k})", r, [(c, f"{t} ({k})") for c, t in claims])
            for k in range(n // len(base))
            for a, text, r, claims in base
        ]

    sizes, points = [], []
    for n in (200, 400, 800):
        batch = items(n)
        sizes.append(len(batch))
        points.append(
            cpu_of(
                lambda b=batch: [lexical_batch(b[i : i + 32]) for i in range(0, len(b), 32)], reps
            )
        )
    return report("judge (lexical)", "answers", sizes, points)


def difficulty(reps: int) -> dict:
    import pandas as pd

    from pipelines.mcq.difficulty import compute_difficulty, minilm_f1_scorer
    from tests.support.mcq_records import make_mcq

    scorer = minilm_f1_scorer()
    words = [
        "door",
        "letter",
        "train",
        "river",
        "night",
        "money",
        "phone",
        "secret",
        "brother",
        "sister",
        "doctor",
        "ship",
    ]

    def frame(n: int) -> pd.DataFrame:
        rng = np.random.default_rng(3)
        rows = []
        for q in range(n):
            pick = rng.choice(words, size=(6, 5))
            rows.append(
                make_mcq(
                    "Friends",
                    f"Friends-S01E{q % 24:02d}",
                    q,
                    question=f"Why does {' '.join(pick[0])} happen {q}?",
                    choices=[" ".join(p) for p in pick[1:]],
                    times=[f"00:0{q % 9}:00-00:0{q % 9}:{10 + q % 40}"],
                    characters=["Ross"],
                    locations=["Central Perk"],
                )
            )
        return pd.DataFrame(rows)

    sizes, points = [], []
    for n in (250, 500, 1000):
        questions = frame(n)
        sizes.append(n)
        points.append(cpu_of(lambda f=questions: compute_difficulty(f, scorer), reps))
    return report("difficulty", "questions", sizes, points)


def _sibling(name: str):
    """Another benchmark module of this folder (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plottree_kmeans(reps: int, full: bool = False) -> dict:
    """Level-0 k-means alone (K = n/36, λ(0) = 100) on story-like unit vectors, at sizes up to
    a 4-hour film, so MiniLM's linear encoding does not hide the search's growth; `full` runs
    the search against every centre (the code before the window) for comparison."""
    from threadpoolctl import threadpool_limits

    from pipelines.plottree.condense import cluster_count, decay, plot_kmeans
    from tests.support.plottree_reference import full_search_kmeans
    from tests.support.story_points import story_like

    kmeans = full_search_kmeans if full else plot_kmeans
    sizes, points = [], []
    for n in (3600, 7200, 14400):
        vectors, times = story_like(n, dim=384, seed=n)
        sizes.append(n)
        with threadpool_limits(1):
            points.append(
                cpu_of(
                    lambda v=vectors, t=times, n=n: kmeans(v, t, cluster_count(n), decay(0), n),
                    reps,
                )
            )
    name = "plottree k-means (level 0, full search)" if full else "plottree k-means (level 0)"
    return report(name, "leaves", sizes, points)


def _import_growth(tmp: Path, fmt: str, divisors: tuple[int, ...]) -> dict:
    from data_access.importers import import_lfvqa_dir

    bench = _sibling("bench_import")
    sizes, points, ratios = [], [], []
    for d in divisors:
        data = tmp / f"growth-{fmt}-{d}"
        rows = bench.scaled_dataset(data, d, fmt)
        raw_db = tmp / f"raw-{fmt}-{d}.duckdb"
        raw = bench.timed(lambda data=data, raw_db=raw_db: bench.raw_load(data, fmt, raw_db))
        store = bench.fresh_store(tmp / f"store-{fmt}-{d}.duckdb")
        wall, cpu = bench.timed(lambda store=store, data=data: import_lfvqa_dir(store, data))
        sizes.append(rows)
        points.append((cpu, wall))
        ratios.append(round(wall / raw[0], 2))
    result = report(f"import ({fmt})", "rows", sizes, points)
    result["ratio_to_raw_load_wall"] = ratios
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="plottree,kmeans,kmeans-full,judge,difficulty,import")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--divisors", default="32,16,8", help="import sizes: paper scale / d")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = set(args.only.split(","))
    results = []
    if "plottree" in only:
        results.append(plottree(args.reps))
    if "kmeans" in only:
        results.append(plottree_kmeans(args.reps))
    if "kmeans-full" in only:
        results.append(plottree_kmeans(args.reps, full=True))
    if "judge" in only:
        results.append(judge(args.reps))
    if "difficulty" in only:
        results.append(difficulty(args.reps))
    if "import" in only:
        divisors = tuple(int(d) for d in args.divisors.split(","))
        with tempfile.TemporaryDirectory() as tmp:
            for fmt in ("parquet", "jsonl"):
                results.append(_import_growth(Path(tmp), fmt, divisors))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
