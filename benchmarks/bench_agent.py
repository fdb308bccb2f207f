"""Agent benchmark: the agent driver's CPU per model turn against the judge's CPU per call, in
one run (LF-VideoQA §4.3 agents, `pipelines.agents`).

The gold film's questions are answered by the fast-tier agent against the scripted
OpenAI-compatible server in a child process (its CPU is not the client's) with `--latency`
injected: each question's first turn calls `subtitle_search` and `find_clips`, the second
answers. The same answers are then judged (`pipelines.judge`, openai backend) against the same
server replying valid judge labels, one judge run per agent run, so both sides pay the same
per-run costs. Reported: the client's CPU (`time.process_time`: the loop, the tools, the
gateway, the store writes) per model turn and per judge call, their ratio, and the tools' share
of the agent's CPU. Measured as bench_judge.py and bench_answer.py measure theirs.

Usage: python benchmarks/bench_agent.py [--rounds 3] [--latency 0.01] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.importers.gold import import_gold  # noqa: E402
from data_access.store import Store  # noqa: E402
from pipelines.agents import loop  # noqa: E402
from pipelines.answer import AnswerOptions, answer_questions  # noqa: E402
from pipelines.demo import step_30_sample_film, step_46_gold  # noqa: E402
from pipelines.judge import JudgeOptions, run_judge  # noqa: E402
from tests.support.fake_server import FakeLLMServer, FakeReply  # noqa: E402

CALLS = [
    {"name": "subtitle_search", "arguments": {"query": "the ledger and the audit"}},
    {"name": "find_clips", "arguments": {"query": "the keeper hides the ledger"}},
]


class AgentOrJudge:
    """Picklable handler: judge labels for a judge prompt; for an agent turn, tool calls first
    and then an answer."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __call__(self, body: dict, number: int) -> FakeReply:
        user = body["messages"][-1]["content"]
        if isinstance(user, str) and "RUBRIC CLAIMS:" in user:
            claims = user.split("RUBRIC CLAIMS:")[1].split("CANDIDATE ANSWER:")[0]
            ords = [int(x.split(".")[0]) for x in claims.strip().splitlines() if x[:1].isdigit()]
            verdicts = [{"claim": o, "label": "omitted", "rationale": "x"} for o in ords]
            return FakeReply(content=json.dumps({"verdicts": verdicts}), delay_s=self.latency)
        if not any(m["role"] == "tool" for m in body["messages"]):
            return FakeReply(tool_calls=CALLS, delay_s=self.latency)
        return FakeReply(content=f"Answer {number}: she knew.", delay_s=self.latency)


class ToolClock:
    """CPU spent inside the tools (wraps `loop.run_tool`)."""

    def __init__(self) -> None:
        self.cpu_s = 0.0
        self.calls = 0
        self._run_tool = loop.run_tool

    def __enter__(self):
        def timed(index, call):
            started = time.process_time()
            try:
                return self._run_tool(index, call)
            finally:
                self.cpu_s += time.process_time() - started
                self.calls += 1

        loop.run_tool = timed
        return self

    def __exit__(self, *exc) -> None:
        loop.run_tool = self._run_tool


def driver_cpu(rounds: int, latency: float) -> dict:
    with (
        tempfile.TemporaryDirectory() as folder,
        FakeLLMServer(AgentOrJudge(latency), in_subprocess=True) as server,
    ):
        os.environ["STORYSCOPE_LLM_API_KEY"] = "sk-bench"
        llm = {"base_url": server.base_url, "model": "bench-model", "concurrency": 8}
        store = Store(Path(folder) / "bench.duckdb")
        step_30_sample_film.run(store, None, lambda m: None)
        import_gold(store, step_46_gold.GOLD_DIR)
        agent_cpu, turns, settings = 0.0, 0, []
        with ToolClock() as tools:
            for round_ in range(rounds):
                options = AnswerOptions(
                    setting="agent", tier="fast", setting_name=f"bench:agent:{round_}", llm=llm
                )
                started = time.process_time()
                summary = answer_questions(store, options)
                agent_cpu += time.process_time() - started
                turns += int(
                    store.scalar(
                        "SELECT sum(turns) FROM agent_answers WHERE run_id = ?",
                        [summary["run_id"]],
                    )
                    or 0
                )
                settings.append(summary["setting_id"])
        judge_cpu, judged = 0.0, 0
        for setting_id in settings:
            started = time.process_time()
            summary = run_judge(
                store, JudgeOptions(backend="openai", where={"settings": [setting_id]}, llm=llm)
            )
            judge_cpu += time.process_time() - started
            judged += summary["done"]
    per_turn = agent_cpu / max(turns, 1) * 1000
    per_judge = judge_cpu / max(judged, 1) * 1000
    return {
        "agent_turns": turns,
        "agent_cpu_ms_per_turn": round(per_turn, 2),
        "tool_calls": tools.calls,
        "tool_cpu_ms_per_call": round(tools.cpu_s / max(tools.calls, 1) * 1000, 2),
        "tools_share_of_agent_cpu": round(tools.cpu_s / agent_cpu, 3) if agent_cpu else None,
        "judge_calls": judged,
        "judge_cpu_ms_per_call": round(per_judge, 2),
        "agent_turn_over_judge_call": round(per_turn / per_judge, 2) if per_judge else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.01)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report = {"load_1min": os.getloadavg()[0], "driver": driver_cpu(args.rounds, args.latency)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
