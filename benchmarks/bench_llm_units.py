"""Per-unit cost of LLM belief annotation on the executor (the plan in
docs/logs/2026-12-01-scale-paper-plan-and-store.md).

`beliefs annotate-many --backend openai` over N small fixture films (3 scenes, 5 characters;
each film's text differs, so no call is a cache hit) against the scripted OpenAI-compatible
server in a child process with `--latency` seconds per reply, once with the local executor and
once on an embedded Ray with 2 CPUs, in one run. Reported per executor: calls, wall seconds,
CPU seconds of the driver and (Ray) of the workers, CPU per call, and the Ray / local wall
ratio. The server's CPU is its own process's and not counted.

Usage: python benchmarks/bench_llm_units.py [--films 8] [--latency 0.1] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.store import (
    Store,  # noqa: E402
    append_rows,
)
from data_access.tables import belief_records
from data_access.tables.runs import RunSpec, finish_run, insert_run  # noqa: E402
from pipelines.llm import LLMConfig  # noqa: E402
from tests.support.belief_llm_replies import route  # noqa: E402 (the scripted replies of the tests)
from tests.support.fake_server import FakeLLMServer, FakeReply  # noqa: E402
from tests.support.rules_film import LINES, LOCATIONS  # noqa: E402


class SlowRoute:
    """Picklable handler: the tests' scripted belief replies after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __call__(self, body: dict, number: int) -> FakeReply:
        return FakeReply(content=route(body, number), delay_s=self.latency)


def write_films(store: Store, n: int) -> list[str]:
    films = [f"bench-{i:03d}" for i in range(n)]
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("preprocess.film", backend="fixture"))
        belief_records.ensure_films(
            cursor,
            [{"film_id": f, "dataset_id": "bench", "title": f, "kind": "film"} for f in films],
            run_id,
        )
        scenes = [
            {"film_id": f, "scene_index": i, "location": loc, "time_source": "none"}
            for f in films
            for i, loc in LOCATIONS.items()
        ]
        append_rows(
            cursor, "scenes", scenes, belief_records.COLUMNS["scenes"], fixed={"run_id": run_id}
        )
        lines = [
            {
                "film_id": f,
                "line_index": number,
                "scene_index": s,
                "kind": k,
                "character": c,
                "parenthetical": p,
                # a film's own words, so its prompts (and cache keys) are its own
                "text": f"{t} ({f})" if k == "direction" else t,
            }
            for f in films
            for number, (s, k, c, p, t) in enumerate(LINES)
        ]
        append_rows(
            cursor,
            "script_lines",
            lines,
            belief_records.COLUMNS["script_lines"],
            fixed={"run_id": run_id},
        )
        finish_run(cursor, run_id)
    return films


def measure(name: str, films_n: int, config: LLMConfig, folder: Path) -> dict:
    from pipelines.beliefs.llm.scaled import annotate_films_llm
    from pipelines.scale import make_executor

    store = Store(folder / f"{name}.duckdb")
    films = write_films(store, films_n)
    started_setup = time.perf_counter()
    executor = make_executor(name, num_cpus=2) if name == "ray" else make_executor(name)
    setup_s = time.perf_counter() - started_setup
    worker_cpu0 = executor.worker_cpu_seconds() if name == "ray" else 0.0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    batch = annotate_films_llm(store, films, executor, config)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    worker_cpu = executor.worker_cpu_seconds() - worker_cpu0 if name == "ray" else 0.0
    executor.close()
    calls = int(store.scalar("SELECT count(*) FROM llm_calls WHERE NOT cached"))
    return {
        "executor": name,
        "units": batch.total,
        "done": batch.done,
        "calls": calls,
        "setup_s": round(setup_s, 1),
        "wall_s": round(wall, 2),
        "driver_cpu_s": round(cpu, 2),
        "worker_cpu_s": round(worker_cpu, 2),
        "cpu_ms_per_call": round(1000 * (cpu + worker_cpu) / max(calls, 1), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--films", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = FakeLLMServer(SlowRoute(args.latency), in_subprocess=True, max_lifetime_s=1800)
    server.start()
    config = LLMConfig(
        base_url=server.base_url, model="fake-model", api_key=None, structured="none"
    )
    try:
        with tempfile.TemporaryDirectory() as folder:
            rows = [measure(name, args.films, config, Path(folder)) for name in ("local", "ray")]
    finally:
        server.stop()
    report = {"films": args.films, "latency_s": args.latency, "runs": rows}
    report["ray_over_local_wall"] = round(rows[1]["wall_s"] / rows[0]["wall_s"], 2)
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
