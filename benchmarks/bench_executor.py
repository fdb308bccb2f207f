"""Executor benchmark (issue #15): the same work with `--executor local` and `--executor ray`.

In one run, against temporary stores (never the demo store):

0. Ray's fixed overhead: starting the embedded Ray plus a tiny job (4 no-op units on fresh
   workers), against the same job on the local executor. Target <= 3 s.
1. PlotTree per video: the aligned videos of ../shared/data/storyvideoqa (imported into a
   temporary store; `--videos N` of them, shortest first) or, without that folder, a
   synthetic set (`--films`, `--minutes`).
2. Difficulty (BERTScore on MiniLM, one video per unit) of the golden MCQs (`--mcqs N` of the
   6,927, whole videos, in file order; 0 = all).
3. Judge: `--calls` answers (default 2,000) judged by the openai backend against the scripted
   server in a child process with `--latency` (100 ms) per reply; the same gateway settings
   (concurrency 8 per gateway) locally and on each Ray worker.

For each: wall seconds, CPU seconds (driver + Ray workers, each worker's whole-process CPU;
Ray's own daemons are not counted), the ratio ray / local wall, and CPU utilisation =
CPU / (wall x cores used). The local run uses one torch thread (STORYSCOPE_TORCH_THREADS=1),
as it does on a 2-core machine by default; Ray starts one worker per CPU, one thread each.
Target on 2 cores: ray wall <= 0.6 x local wall.

On a shared machine the absolute figures are noisy: read the ratios, and the load average
printed with them.

Usage: python benchmarks/bench_executor.py [--only overhead,plottree,difficulty,judge]
       [--videos 6] [--mcqs 1500] [--calls 2000] [--latency 0.1] [--json OUT]
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

os.environ.setdefault("STORYSCOPE_TORCH_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from data_access.store import Store  # noqa: E402
from pipelines.scale import LocalExecutor, RayExecutor, Unit  # noqa: E402
from pipelines.scale.executor import start_ray  # noqa: E402

SHARED = Path(os.environ.get("STORYSCOPE_SHARED_DATA", ROOT.parent / "shared" / "data"))


def _noop(payload):
    return payload


class Measured:
    """Wall and CPU of one run (driver process CPU + Ray workers' process CPU)."""

    def __init__(self, label: str, executor) -> None:
        self.label, self.executor = label, executor

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu
        if isinstance(self.executor, RayExecutor):
            self.cpu += self.executor.worker_cpu_seconds()

    def row(self) -> dict:
        cores = self.executor.workers
        return {
            "executor": self.label,
            "workers": cores,
            "wall_s": round(self.wall, 2),
            "cpu_s": round(self.cpu, 2),
            "cpu_utilisation": round(self.cpu / (self.wall * cores), 2) if self.wall else None,
        }


def compare(name: str, work, make_ray) -> dict:
    """Run `work(executor)` locally, then on a fresh Ray executor; report both and the ratio."""
    rows = {}
    local = LocalExecutor()
    with Measured("local", local) as m:
        detail = work(local)
    rows["local"] = {**m.row(), **(detail or {})}
    ray_executor = make_ray()
    with Measured("ray", ray_executor) as m:
        detail = work(ray_executor)
    rows["ray"] = {**m.row(), **(detail or {})}
    ray_executor.close()
    result = {
        "pipeline": name,
        **rows,
        "ratio_wall": round(rows["ray"]["wall_s"] / rows["local"]["wall_s"], 3),
        "load_avg": os.getloadavg()[0],
    }
    print(json.dumps(result), flush=True)
    return result


# -- 0. overhead ---------------------------------------------------------------------------------
def overhead(cpus: int) -> dict:

    units = [Unit(str(i), i) for i in range(4)]
    started = time.perf_counter()
    list(LocalExecutor().map_units(_noop, units))
    local_s = time.perf_counter() - started
    started = time.perf_counter()
    start_ray(None, cpus)
    init_s = time.perf_counter() - started
    executor = RayExecutor()
    list(executor.map_units(_noop, units))
    total_s = time.perf_counter() - started
    executor.close()
    started = time.perf_counter()
    warm = RayExecutor()
    list(warm.map_units(_noop, units))
    warm_s = time.perf_counter() - started
    warm.close()
    result = {
        "pipeline": "overhead (4 no-op units)",
        "local_s": round(local_s, 4),
        "ray_init_s": round(init_s, 2),
        "ray_cold_total_s": round(total_s, 2),
        "ray_warm_new_workers_s": round(warm_s, 2),
        "load_avg": os.getloadavg()[0],
    }
    print(json.dumps(result), flush=True)
    return result


# -- 1. PlotTree -------------------------------------------------------------------------------
def _synthetic_sources(films: int, minutes: int) -> list[dict]:
    path = ROOT / "benchmarks" / "bench_plottree.py"
    spec = importlib.util.spec_from_file_location("bench_plottree", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return [
        {
            "film_id": f"synthetic-{i:02d}",
            "timeline": bench.synthetic_timeline(minutes, seed=11 + i),
            "runtime_s": minutes * 60.0,
            "video_path": None,
        }
        for i in range(films)
    ]


def _real_films(store: Store, videos: int) -> list[str]:
    from data_access.importers import import_storyvideoqa_dir
    from data_access.plottree import films_with_timeline

    import_storyvideoqa_dir(store, SHARED / "storyvideoqa")
    films = films_with_timeline(store, "storyvideoqa")
    films = films.sort_values("film_id")["film_id"].tolist()
    if videos:
        films = films[:videos]
    return films


def plottree(args, tmp: Path) -> dict:
    from pipelines.plottree.build import tree_input
    from pipelines.plottree.scaled import build_trees_from_sources

    store = Store(tmp / "plottree.duckdb")
    if (SHARED / "storyvideoqa").is_dir() and not args.synthetic:
        films = _real_films(store, args.videos)
        sources, origin = [tree_input(store, f) for f in films], "storyvideoqa aligned videos"
    else:
        sources, origin = _synthetic_sources(args.films, args.minutes), "synthetic"

    def work(executor):
        built, batch = build_trees_from_sources(store, sources, executor)
        return {"trees": batch.done, "leaves": sum(t.n_leaves for t in built)}

    films = [s["film_id"] for s in sources]
    return {**compare("plottree", work, RayExecutor), "source": origin, "films": films}


# -- 2. difficulty -----------------------------------------------------------------------------
def difficulty(args, tmp: Path) -> dict:
    from pipelines.mcq.difficulty_run import run_difficulty
    from tests.mcq_helpers import golden_records, load_records

    records = golden_records(SHARED)
    if args.mcqs:
        kept, vids = [], set()
        for record in records:  # whole videos, in file order, until the limit is reached
            if len(kept) >= args.mcqs and record["vid"] not in vids:
                break
            vids.add(record["vid"])
            kept.append(record)
        records = kept
    store = Store(tmp / "difficulty.duckdb")
    load_records(store, records)

    def work(executor):
        summary = run_difficulty(store, executor=executor)
        return {"questions": summary["n"]}

    return {**compare("difficulty", work, RayExecutor), "mcqs": len(records)}


# -- 3. judge ----------------------------------------------------------------------------------
class ScriptedLatency:
    """Picklable handler: the tests' scripted judge after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __call__(self, body: dict, number: int):
        from pipelines.llm.fake_server import FakeReply
        from tests.support.lfvqa_rows import scripted_judge

        return FakeReply(content=scripted_judge(body, number), delay_s=self.latency)


def judge(args, tmp: Path, server) -> dict:
    from pipelines.judge import JudgeOptions, run_judge
    from tests.support.lfvqa_rows import build_slice

    llm = {"base_url": server.base_url, "model": "fake-model", "concurrency": 8}
    stores = {}
    for name in ("local", "ray"):
        stores[name] = Store(tmp / f"judge-{name}.duckdb")
        build_slice(stores[name], n_copies=max(1, args.calls // 4))

    def work(executor):
        options = JudgeOptions(backend="openai", llm=llm, executor=executor.name, batch_size=32)
        summary = run_judge(stores[executor.name], options, executor=executor)
        return {"answers": summary["done"], "failed": summary["failed"]}

    return {**compare("judge", work, RayExecutor), "calls": args.calls, "latency_s": args.latency}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="overhead,plottree,difficulty,judge")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--videos", type=int, default=6, help="0 = every aligned video")
    parser.add_argument("--synthetic", action="store_true", help="synthetic films for PlotTree")
    parser.add_argument("--films", type=int, default=4)
    parser.add_argument("--minutes", type=int, default=20)
    parser.add_argument("--mcqs", type=int, default=1500, help="0 = all 6,927")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = set(args.only.split(","))
    results = []
    server = None
    if "judge" in only:  # forked before Ray starts any thread
        from pipelines.llm.fake_server import FakeLLMServer

        server = FakeLLMServer(
            ScriptedLatency(args.latency), in_subprocess=True, max_lifetime_s=3600
        ).start()
    results.append(overhead(args.cpus))
    with tempfile.TemporaryDirectory() as tmp:
        if "plottree" in only:
            results.append(plottree(args, Path(tmp)))
        if "difficulty" in only:
            results.append(difficulty(args, Path(tmp)))
        if "judge" in only:
            results.append(judge(args, Path(tmp), server))
    if server is not None:
        server.stop()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
