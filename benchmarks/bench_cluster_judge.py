"""The openai judge on a real Ray cluster, with a budget (issue 30): is the driver the bottleneck?

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

Usage: python benchmarks/bench_cluster_judge.py [--answers 100000] [--latency 0.2]
       [--concurrency 32] [--head-cpus 1] [--node-cpus 1] [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
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
    """Times the driver's write transactions on a store (wall and this thread's CPU)."""

    def __init__(self, store: Store) -> None:
        self.wall_s = self.cpu_s = 0.0
        self.transactions = 0
        self._transaction = store.transaction
        store.transaction = self._timed  # this store object only

    @contextlib.contextmanager
    def _timed(self, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        with self._transaction(*args, **kwargs) as cursor:
            yield cursor
        self.wall_s += time.perf_counter() - wall
        self.cpu_s += time.thread_time() - cpu
        self.transactions += 1


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
    clock = WriteClock(store)
    wall, cpu = time.perf_counter(), time.process_time()
    summary = run_judge(store, options, executor=executor)
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
        "write_wall_s": round(clock.wall_s, 2),
        "write_cpu_s": round(clock.cpu_s, 2),
        "store_write_rate_verdicts_per_s": round(verdicts / max(clock.wall_s, 1e-9)),
        "workers_cpu_s": round(workers_cpu, 1),
        "driver_core_at_500_calls_per_s": round(per_call_ms * TARGET_CALLS_PER_S / 1000, 3),
        "budget_tokens": args.budget_tokens,
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
        cluster = start_cluster(Path(tmp) / "cluster", args.head_cpus, args.node_cpus)
        try:
            load_before = os.getloadavg()[0]
            result = judge_on_cluster(args, store, server, cluster)
        finally:
            import ray

            ray.shutdown()
            cluster.stop()
            server.stop()
    result = {"latency_s": args.latency, "load_before": round(load_before, 1), **result}
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
