"""Answering benchmark: the answer driver's CPU per call against the judge's, in one run, and
what each setting gives a model for one question of the longest screenplay film.

1. Driver CPU per call. The gold film's questions are answered (`pipelines.answer`) in the
   subtitles and screenplay settings against the scripted OpenAI-compatible server in a child
   process (its CPU is not the client's) with `--latency` injected, then the same answers are
   judged (`pipelines.judge`, openai backend) against a server replying valid judge labels.
   Reported: the client's CPU per call (`time.process_time`: building the inputs, the gateway,
   the store writes) for each, and their ratio, measured as bench_judge.py measures the
   judge's. Each answer run is judged in a run of its own, so both sides pay the same
   per-run costs (opening the store, starting the gateway) over the same number of calls.
2. With `--data-dir` (../shared/data): Chinatown (the longest screenplay of the real-data demo
   store) is ingested into a temporary store and one question's input is built in every text
   setting at a 32k and a 128k window: estimated tokens, units kept, and the CPU time to build.

Usage: python benchmarks/bench_answer.py [--rounds 4] [--latency 0.01] [--data-dir ../shared/data]
       [--json OUT]
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
from pipelines.answer import AnswerOptions, answer_questions  # noqa: E402
from pipelines.demo import step_30_sample_film, step_46_gold  # noqa: E402
from pipelines.judge import JudgeOptions, run_judge  # noqa: E402
from tests.support.fake_server import FakeLLMServer, FakeReply  # noqa: E402


class AnswerOrJudge:
    """Picklable handler: a judge reply labelling every claim, or a free-text answer."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __call__(self, body: dict, number: int) -> FakeReply:
        user = body["messages"][-1]["content"]
        if isinstance(user, str) and "RUBRIC CLAIMS:" in user:
            claims = user.split("RUBRIC CLAIMS:")[1].split("CANDIDATE ANSWER:")[0]
            ords = [
                int(line.split(".")[0])
                for line in claims.strip().splitlines()
                if line[:1].isdigit()
            ]
            verdicts = [{"claim": o, "label": "omitted", "rationale": "x"} for o in ords]
            return FakeReply(content=json.dumps({"verdicts": verdicts}), delay_s=self.latency)
        return FakeReply(content=f"Answer {number}: she knew.", delay_s=self.latency)


def _llm(server: FakeLLMServer) -> dict:
    return {"base_url": server.base_url, "model": "bench-model", "concurrency": 8}


def driver_cpu(rounds: int, latency: float) -> dict:
    with tempfile.TemporaryDirectory() as folder, FakeLLMServer(AnswerOrJudge(latency)) as server:
        os.environ["STORYSCOPE_LLM_API_KEY"] = "sk-bench"
        store = Store(Path(folder) / "bench.duckdb")
        step_30_sample_film.run(store, None, lambda m: None)
        import_gold(store, step_46_gold.GOLD_DIR)
        answer_cpu, answers, settings = 0.0, 0, []
        for round_ in range(rounds):
            for setting in ("subtitles", "screenplay"):
                options = AnswerOptions(
                    setting=setting,
                    setting_name=f"bench:{setting}:{round_}",
                    llm=_llm(server),
                    context={"context_tokens": 8192},
                )
                started = time.process_time()
                summary = answer_questions(store, options)
                answer_cpu += time.process_time() - started
                answers += summary["answered"]
                settings.append(summary["setting_id"])
        judge_cpu, judged = 0.0, 0
        for setting_id in settings:  # one judge run per answer run: runs of the same size
            started = time.process_time()
            summary = run_judge(
                store,
                JudgeOptions(backend="openai", where={"settings": [setting_id]}, llm=_llm(server)),
            )
            judge_cpu += time.process_time() - started
            judged += summary["done"]
    per_answer = answer_cpu / max(answers, 1) * 1000
    per_judge = judge_cpu / max(judged, 1) * 1000
    return {
        "answer_calls": answers,
        "answer_cpu_ms_per_call": round(per_answer, 2),
        "judge_calls": judged,
        "judge_cpu_ms_per_call": round(per_judge, 2),
        "answer_over_judge": round(per_answer / per_judge, 2) if per_judge else None,
    }


def setting_sizes(data_dir: Path) -> dict:
    from data_access.queries.task_questions import open_ended_questions  # noqa: F401
    from pipelines.preprocess.ingest import ingest_film
    from pipelines.settings import InputBuilder, SettingOptions, get_setting

    pair = data_dir / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles" / "chinatown"
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "film.duckdb")
        ingest_film(store, pair.with_suffix(".txt"), pair.with_suffix(".srt"), film_id="chinatown")
        question = {
            "question_id": "q",
            "film_id": "chinatown",
            "text": "What does Gittes believe about Evelyn Mulwray when he first meets her?",
        }
        for window in (32768, 131072):
            for source in ("question-only", "screenplay", "subtitles"):
                builder = InputBuilder(
                    store, get_setting(source), SettingOptions(context_tokens=window)
                )
                started = time.process_time()
                given = builder.build(question)
                cpu = time.process_time() - started
                record = given.record
                out[f"{source}@{window}"] = {
                    "est_tokens": record["est_tokens"],
                    "units_kept": record["units_kept"],
                    "units_total": record["units_total"],
                    "chars": record["text_chars"],
                    "build_cpu_ms": round(cpu * 1000, 1),
                }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.01)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report = {"load_1min": os.getloadavg()[0], "driver": driver_cpu(args.rounds, args.latency)}
    if args.data_dir is not None:
        report["chinatown_settings"] = setting_sizes(args.data_dir)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
