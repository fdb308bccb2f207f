"""A local openai judge run, the old way against the new, in the same run.

The old way is the local path the judge had before its local run became the executor path: one
gateway for the whole slice, writing each batch of replies with its verdicts as it came
(`old_local_judge` below, the removed `runners._through_gateway`). The new way is
`run_judge` as it is: units of max(batch_size, 4 x concurrency) answers on the local executor,
each unit's rows written in one transaction (pipelines.judge.runners).

Both judge the same answers (`tests.support.lfvqa_rows.build_slice`, each answer made
distinct so no two share a cache key) against the scripted OpenAI-compatible server in a child
process (its CPU is not the client's) with `--latency` seconds per reply, at the judge's
default concurrency, each on its own fresh store; then each replays its own store's cache (a
second run of the same judge, nothing sent). The two ways alternate `--rounds` times, so drift
of a shared, loaded machine falls on both alike. Reported: the median wall time and client CPU
(`time.process_time`) of each way, and new / old ratios, with the load average (`uptime`)
before and after. A ratio near 1 says the one path costs what the old local path did.

Usage: python benchmarks/bench_judge_local.py [--copies 100] [--latency 0.02] [--rounds 2]
       [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pipelines.judge.runners as runners  # noqa: E402
from data_access.store import Store  # noqa: E402
from pipelines.judge import JudgeOptions, run_judge  # noqa: E402
from pipelines.judge.verdicts import verdict_rows  # noqa: E402
from pipelines.judge.work import judge_items, judge_request  # noqa: E402
from pipelines.llm import Gateway  # noqa: E402
from tests.support.fake_server import FakeLLMServer, FakeReply  # noqa: E402
from tests.support.lfvqa_rows import build_slice, scripted_judge  # noqa: E402


class LatencyJudge:
    """Picklable handler: the scripted judge's reply after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __call__(self, body: dict, number: int) -> FakeReply:
        return FakeReply(content=scripted_judge(body, number), delay_s=self.latency)


def old_local_judge(store, part, options, writer, executor=None) -> None:
    """The judge's local openai run before it became the executor path (the baseline)."""
    if part.answers.empty:
        return
    gateway = Gateway(store, options.config(), writer.run_id, batch_size=options.batch_size)
    items = judge_items(part)
    claims_of = {item[0]: part.claims[item[1]] for item in items}

    def on_batch(cursor, results) -> None:
        failed = [r.item_id for r in results if r.status == "failed"]
        writer.write(cursor, verdict_rows(results, claims_of), failed)
        if writer.should_stop():
            gateway.stop("stopped")

    requests = [judge_request(item, part.claims[item[1]], options.prompt_version) for item in items]
    gateway.run(requests, on_batch=on_batch)
    if gateway.stop_reason == "budget":
        writer.stopped = True


def fresh_store(directory: Path, name: str, copies: int) -> Store:
    store = Store(directory / f"{name}.duckdb")
    build_slice(store, n_copies=copies)
    with store.transaction() as cursor:  # distinct answers: no two share a cache key
        cursor.execute("UPDATE answers SET text = text || ' (' || answer_id || ')'")
    return store


def timed_run(store: Store, options: JudgeOptions, way: str) -> dict:
    patch = mock.patch.object(runners, "judge_llm", old_local_judge)
    started, cpu = time.perf_counter(), time.process_time()
    if way == "old":
        with patch:
            summary = run_judge(store, options)
    else:
        summary = run_judge(store, options)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert summary["failed"] == 0 and summary["done"] == summary["answers"], summary
    calls = store.df("SELECT cached FROM llm_calls WHERE run_id = ?", [summary["run_id"]])
    return {"wall_s": wall, "cpu_s": cpu, "answers": summary["answers"], "cached": calls.cached}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=100, help="4 answers per copy")
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    load_before = uptime()
    os.environ["STORYSCOPE_LLM_API_KEY"] = "sk-bench-0000000000"
    figures: dict[str, dict[str, list[float]]] = {
        f"{way} {phase}": {"wall_s": [], "cpu_s": []}
        for phase in ("fresh", "replay")
        for way in ("old", "new")
    }
    answers = 0
    with (
        FakeLLMServer(LatencyJudge(args.latency), in_subprocess=True) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        llm = {"base_url": server.base_url, "model": "bench", "timeout_s": 30.0}
        options = JudgeOptions(backend="openai", llm=llm)  # batch 32, concurrency 8
        for round_ in range(args.rounds):
            order = ("old", "new") if round_ % 2 == 0 else ("new", "old")
            for way in order:
                store = fresh_store(Path(tmp), f"{way}{round_}", args.copies)
                for phase in ("fresh", "replay"):
                    run = timed_run(store, options, way)
                    assert bool(run["cached"].all()) == (phase == "replay")
                    answers = run["answers"]
                    for key in ("wall_s", "cpu_s"):
                        figures[f"{way} {phase}"][key].append(run[key])
                    print(f"{way} {phase}: {run['wall_s']:.2f} s", file=sys.stderr, flush=True)
    medians = {
        name: {key: round(statistics.median(values), 3) for key, values in runs.items()}
        for name, runs in figures.items()
    }
    result = {
        "answers": answers,
        "latency_s": args.latency,
        "concurrency": options.config().concurrency,
        "rounds": args.rounds,
        "medians": medians,
        "new_over_old": {
            phase: {
                key: round(medians[f"new {phase}"][key] / medians[f"old {phase}"][key], 3)
                for key in ("wall_s", "cpu_s")
            }
            for phase in ("fresh", "replay")
        },
        "uptime_before": load_before,
        "uptime_after": uptime(),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
