"""The openai judge on a real Ray cluster, with a budget: is the driver the bottleneck?

Starts a two-node Ray cluster on this machine as a lab would (`ray start --head` and `ray start
--address`, tests/support/ray_cluster.py: loopback, small object stores, no dashboard), the
scripted judge server in a child process (`--latency` per reply, default 200 ms), a store with
`--answers` answers (2-3 rubric claims each), and runs `run_judge(backend="openai")` on the
cluster from this process (the driver) with a token budget every worker's gateway consults
(the shared budget actor) before each call.

Reported: calls/s; the driver's CPU (this process, all its threads: planning the requests, the
cache look-up, Ray's client threads, the writes) per call and per stored verdict; the store write
rate (verdicts per second of the driver's write transactions, and their CPU); the workers' CPU;
and the driver's share of one core at 500 calls/s = driver CPU per call x 500 (target ≤ 0.2).
The load average is printed with the figures.

Also reported: the store file's opens and closes (the driver holds the file open across
units for up to `data_access.store.HOLD_S`, so they are paid per hold, not per call),
the driver's CPU while Ray is connected and idle (`--idle-s` seconds before the run: Ray's
client threads, paid per second), the driver's CPU per call without either, and from these
the share of a core at 500 calls/s: per call x 500 + opens per second (at most one per hold)
+ the idle CPU per second; and the CPU of the driver's threads by name. `--profile OUT` writes
a cProfile of the driver's main thread (CPU time) and prints its top functions.

Every answer's prompt is distinct by default, as in a real benchmark (each answer is its own
text), so every unit writes a cache row per call; `--shared-prompts` keeps the fixture's copies
identical (only 4 distinct prompts, one cache row per distinct prompt: the form of runs before
4 Dec 2026, which measured far fewer cache writes than a real run makes).

Usage: python benchmarks/bench_cluster_judge.py [--answers 100000] [--latency 0.2]
       [--concurrency 32] [--head-cpus 1] [--node-cpus 1] [--json OUT] [--profile OUT]
       [--shared-prompts]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_executor import ScriptedLatency  # noqa: E402
from data_access.store import Store  # noqa: E402
from tests.support.ray_cluster import LocalRayCluster  # noqa: E402

TARGET_CALLS_PER_S, TARGET_DRIVER_CORE = 500, 0.2


class WriteClock:
    """Times the driver's write transactions on a store (wall and this thread's CPU), and the
    store file's opens and closes: inside a transaction when the file was not held open, or
    apart from them when the driver holds it across units (data_access.store.HeldFile);
    both count as write time."""

    def __init__(self, store: Store) -> None:
        self.wall_s = self.cpu_s = 0.0
        self.transactions = 0
        self.opens = 0
        self.open_wall_s = self.open_cpu_s = 0.0  # opens + closes, wherever they ran
        self._outside_wall_s = self._outside_cpu_s = 0.0  # the part outside transactions
        self._inside = False
        self._transaction = store.transaction
        store.transaction = self._timed  # this store object only
        self._open, self._close = store._open_connection, store._close
        store._open_connection = self._timed_file(self._open, opens=1)
        store._close = self._timed_file(self._close, opens=0)

    def _timed_file(self, method, opens: int):
        def timed(*args, **kwargs):
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
                self.opens += opens
                self.open_wall_s += wall
                self.open_cpu_s += cpu
                if not self._inside:
                    self._outside_wall_s += wall
                    self._outside_cpu_s += cpu

        return timed

    @contextlib.contextmanager
    def _timed(self, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        self._inside = True
        try:
            with self._transaction(*args, **kwargs) as cursor:
                yield cursor
        finally:
            self._inside = False
        self.wall_s += time.perf_counter() - wall
        self.cpu_s += time.thread_time() - cpu
        self.transactions += 1

    @property
    def write_wall_s(self) -> float:
        return self.wall_s + self._outside_wall_s

    @property
    def write_cpu_s(self) -> float:
        return self.cpu_s + self._outside_cpu_s


def thread_cpu(top: int = 8) -> dict[str, float]:
    """CPU seconds since start of this process's live threads by name (Linux /proc; {}
    elsewhere): the main thread (the store's build too), Ray's client threads, DuckDB's
    threads (they take the process's name)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    found: dict[str, float] = {}
    for task in Path("/proc/self/task").glob("*"):
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        name = "main thread" if task.name == str(os.getpid()) else name
        fields = stat[stat.rindex(")") + 2 :].split()
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    ranked = sorted(found.items(), key=lambda kv: -kv[1])[:top]
    return {name: round(seconds, 2) for name, seconds in ranked}


def distinct_answers(store: Store) -> None:
    """Make every answer's text (hence its judge prompt and cache key) its own."""
    with store.transaction() as cursor:
        cursor.execute("UPDATE answers SET text = text || ' (' || answer_id || ')'")


def start_cluster(root: Path, head_cpus: int, node_cpus: int) -> LocalRayCluster:
    cluster = LocalRayCluster(root)
    cluster.start_head(num_cpus=head_cpus)
    cluster.wait_for_nodes(1)
    cluster.add_node(num_cpus=node_cpus, resources={"lab_node": 1})
    cluster.wait_for_nodes(2)
    return cluster


def judge_on_cluster(args, store: Store, server, cluster: LocalRayCluster) -> dict:
    from pipelines.judge import JudgeOptions, run_judge
    from pipelines.scale import RayExecutor

    os.environ.update(cluster.env)  # the cluster's auth token, for this driver
    executor = RayExecutor(address=cluster.address)
    llm = {
        "base_url": server.base_url,
        "model": "fake-model",
        "concurrency": args.concurrency,
        "budget_tokens": args.budget_tokens,
    }
    options = JudgeOptions(backend="openai", llm=llm, executor="ray", batch_size=32)
    # What the driver burns with Ray connected and nothing to do (its client threads): paid per
    # second, not per call.
    idle_wall, idle_cpu = time.perf_counter(), time.process_time()
    time.sleep(args.idle_s)
    idle_cpu_per_s = (time.process_time() - idle_cpu) / (time.perf_counter() - idle_wall)
    clock = WriteClock(store)
    profile = cProfile.Profile(time.thread_time) if args.profile else None  # the main thread
    wall, cpu = time.perf_counter(), time.process_time()
    if profile:
        profile.enable()
    summary = run_judge(store, options, executor=executor)
    if profile:
        profile.disable()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    workers_cpu = executor.worker_cpu_seconds()
    executor.close()
    verdicts = store.scalar(
        "SELECT count(*) FROM claim_verdicts WHERE run_id = ?", [summary["run_id"]]
    )
    calls = store.scalar(
        "SELECT count(*) FROM llm_calls WHERE run_id = ? AND NOT cached", [summary["run_id"]]
    )
    per_call_ms = 1000 * cpu / max(calls, 1)
    threads = thread_cpu()
    if profile:
        profile.dump_stats(args.profile)
        pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    # The file's opens are paid per hold (at most one per HOLD_S), not per call: at 500 calls/s
    # the driver would pay the per-call rest x 500 plus at most 1/HOLD_S opens a second.
    # (code without the hold opens the file once per unit of 4 x concurrency calls)
    from data_access import store as store_module

    units_per_s = TARGET_CALLS_PER_S / (4 * args.concurrency)
    hold_s = getattr(store_module, "HOLD_S", None)
    per_open_cpu = clock.open_cpu_s / max(clock.opens, 1)
    rest_ms = 1000 * (cpu - clock.open_cpu_s) / max(calls, 1)
    # the per-call part without the file's opens and without Ray's idle burn over the run
    per_call_only_ms = 1000 * (cpu - clock.open_cpu_s - idle_cpu_per_s * wall) / max(calls, 1)
    opens_per_s_at_target = units_per_s if hold_s is None else min(1 / hold_s, units_per_s)
    return {
        "answers": summary["done"],
        "failed": summary["failed"],
        "stopped": summary["stopped"],
        "calls": calls,
        "verdicts": verdicts,
        "wall_s": round(wall, 1),
        "calls_per_s": round(calls / wall, 1),
        "driver_cpu_s": round(cpu, 1),
        "driver_cores_busy": round(cpu / wall, 3),
        "driver_cpu_ms_per_call": round(per_call_ms, 3),
        "driver_cpu_ms_per_verdict": round(1000 * cpu / max(verdicts, 1), 3),
        "write_transactions": clock.transactions,
        "write_wall_s": round(clock.write_wall_s, 2),
        "write_cpu_s": round(clock.write_cpu_s, 2),
        "store_write_rate_verdicts_per_s": round(verdicts / max(clock.write_wall_s, 1e-9)),
        "store_file_opens": clock.opens,
        "store_file_open_close_cpu_s": round(clock.open_cpu_s, 2),
        "driver_cpu_ms_per_call_without_opens": round(rest_ms, 3),
        "workers_cpu_s": round(workers_cpu, 1),
        "driver_core_at_500_calls_per_s": round(per_call_ms * TARGET_CALLS_PER_S / 1000, 3),
        "driver_core_at_500_calls_per_s_opens_per_hold": round(
            rest_ms * TARGET_CALLS_PER_S / 1000 + opens_per_s_at_target * per_open_cpu, 3
        ),
        "driver_idle_cpu_per_s": round(idle_cpu_per_s, 4),
        "driver_cpu_ms_per_call_without_opens_and_idle": round(per_call_only_ms, 3),
        "driver_core_at_500_calls_per_s_per_call_plus_per_second": round(
            per_call_only_ms * TARGET_CALLS_PER_S / 1000
            + opens_per_s_at_target * per_open_cpu
            + idle_cpu_per_s,
            3,
        ),
        "budget_tokens": args.budget_tokens,
        "driver_threads_cpu_s": threads,
        "load_avg": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32, help="in flight per worker")
    parser.add_argument("--budget-tokens", type=int, default=10**10)
    parser.add_argument("--head-cpus", type=int, default=1)
    parser.add_argument("--node-cpus", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile", type=Path, help="cProfile the driver's main thread to OUT")
    parser.add_argument(
        "--idle-s", type=float, default=5.0, help="seconds to measure the idle driver's CPU"
    )
    parser.add_argument(
        "--shared-prompts",
        action="store_true",
        help="keep the fixture's copies identical (4 distinct prompts; earlier runs' form)",
    )
    args = parser.parse_args()
    from tests.support.fake_server import FakeLLMServer
    from tests.support.lfvqa_rows import build_slice

    # the server's child process is forked before this process starts any Ray thread
    server = FakeLLMServer(
        ScriptedLatency(args.latency), in_subprocess=True, max_lifetime_s=7200
    ).start()
    with tempfile.TemporaryDirectory(prefix="bench_cluster_judge_") as tmp:
        store = Store(Path(tmp) / "judge.duckdb", lock_timeout=60)
        build_slice(store, n_copies=max(1, args.answers // 4))  # 4 answers a copy
        if not args.shared_prompts:
            distinct_answers(store)
        cluster = start_cluster(Path(tmp) / "cluster", args.head_cpus, args.node_cpus)
        try:
            load_before = os.getloadavg()[0]
            result = judge_on_cluster(args, store, server, cluster)
        finally:
            import ray

            ray.shutdown()
            cluster.stop()
            server.stop()
    result = {
        "latency_s": args.latency,
        "shared_prompts": args.shared_prompts,
        "load_before": round(load_before, 1),
        **result,
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
