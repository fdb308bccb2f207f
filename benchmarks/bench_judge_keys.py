"""The judge driver's cache keys: per-rubric-shape fast keys against one gateway key per request.

A scaled-out openai judge run hashes every answer's App. F.2 request once on the driver to split
cached from uncached answers (`pipelines.judge.work.judge_keys`). The baseline of the same run is
the plain way: render each request (`judge_request`) and ask the gateway for its key
(`Gateway.key_of`). Reported: microseconds per answer of each, and their ratio (baseline / fast),
so figures taken on a loaded machine are compared within one run. Every mode the gateway can key
in is measured (prompt mode rewrites the messages, so it falls back to the gateway's keys).

Usage: python benchmarks/bench_judge_keys.py [--answers 20000] [--repeats 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.judge.prompt import PROMPT_VERSION  # noqa: E402
from pipelines.judge.work import judge_keys, judge_request  # noqa: E402
from pipelines.llm import Gateway, LLMConfig  # noqa: E402


def synthetic(n: int) -> tuple[list[tuple], dict[str, list[dict]]]:
    """`n` answers over 50 questions with 2-5 claims each (distinct texts: a real run's shape)."""
    claims = {
        f"q{q}": [
            {
                "claim_id": f"q{q}c{i}",
                "ord": i,
                "role": "core" if i < 3 else "context",
                "text": f"Claim {i} of question {q}: the character did a thing.",
            }
            for i in range(1, 2 + q % 4 + 1)
        ]
        for q in range(50)
    }
    items = [
        (f"a{i}", f"q{i % 50}", f"Question {i % 50}: what happened?", f"Answer {i}: it happened.")
        for i in range(n)
    ]
    return items, claims


def measure(items, claims, mode: str, repeats: int) -> dict:
    config = LLMConfig(model="m", base_url="http://x", structured=mode, max_tokens=300)
    gateway = Gateway(None, config, "bench")
    best_fast = best_slow = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fast = judge_keys(items, claims, PROMPT_VERSION, gateway)
        best_fast = min(best_fast, time.process_time() - start)
        start = time.process_time()
        slow = [
            gateway.key_of(judge_request(item, claims[item[1]], PROMPT_VERSION, parse=False))
            for item in items
        ]
        best_slow = min(best_slow, time.process_time() - start)
    assert fast == slow, "the fast keys must equal the gateway's"
    n = len(items)
    return {
        "mode": mode,
        "fast_us_per_answer": round(best_fast / n * 1e6, 2),
        "gateway_us_per_answer": round(best_slow / n * 1e6, 2),
        "ratio_gateway_over_fast": round(best_slow / best_fast, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    items, claims = synthetic(args.answers)
    rows = [measure(items, claims, mode, args.repeats) for mode in ("json_schema", "prompt")]
    report = {"answers": args.answers, "rows": rows, "load_average_1m": os.getloadavg()[0]}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
