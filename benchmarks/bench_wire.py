"""What each scaled-out command sends over the wire (docs/SCALE.md "What travels").

Runs `plottree build`, `difficulty` and the openai `judge` (scripted server) on fixture data
through an executor that runs units here but serialises every unit and every outcome with
cloudpickle, Ray's serialiser for task arguments and results, and counts the bytes: what a
Ray cluster would carry from the driver to a worker (the unit: function + payload) and back
(the outcome: rows). Per command: units, bytes out and back (total and per unit), and the
bytes per row written.

Usage: python benchmarks/bench_wire.py [--films 3] [--answers 400] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import cloudpickle

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from data_access.store import Store  # noqa: E402
from pipelines.scale import LocalExecutor  # noqa: E402


class WireTally(LocalExecutor):
    """A local executor that serialises each unit and outcome as Ray would, and counts."""

    name = "wire"

    def __init__(self) -> None:
        super().__init__()
        self.units = self.bytes_out = self.bytes_back = 0

    def map_units(self, fn, units):
        fn_bytes = len(cloudpickle.dumps(fn))  # Ray ships the function once per batch (put)
        self.bytes_out += fn_bytes
        for unit in units:
            self.units += 1
            self.bytes_out += len(cloudpickle.dumps(unit))
            for outcome in super().map_units(fn, [unit]):
                self.bytes_back += len(cloudpickle.dumps(outcome))
                yield outcome

    def row(self, rows_written: int) -> dict:
        return {
            "units": self.units,
            "kb_out": round(self.bytes_out / 1024, 1),
            "kb_back": round(self.bytes_back / 1024, 1),
            "kb_out_per_unit": round(self.bytes_out / 1024 / max(self.units, 1), 1),
            "kb_back_per_unit": round(self.bytes_back / 1024 / max(self.units, 1), 1),
            "rows_written": rows_written,
            "bytes_back_per_row": round(self.bytes_back / max(rows_written, 1)),
        }


def _store(tmp: Path, name: str) -> Store:
    store = Store(tmp / f"{name}.duckdb")
    with store.session():
        pass
    return store


def plottree(tmp: Path, films: int) -> dict:
    from pipelines.plottree.scaled import build_trees
    from tests.support.plottree_film import write_fixture_film

    store = _store(tmp, "plottree")
    ids = [f"film-{i}" for i in range(films)]
    for film in ids:
        write_fixture_film(store, film)
    tally = WireTally()
    build_trees(store, ids, tally)
    return tally.row(store.scalar("SELECT count(*) FROM plottree_nodes"))


def difficulty(tmp: Path) -> dict:
    from pipelines.mcq.difficulty_run import run_difficulty
    from tests.support.cluster_mcqs import cluster_mcq_records
    from tests.support.mcq_records import load_records

    store = _store(tmp, "difficulty")
    load_records(store, cluster_mcq_records())
    tally = WireTally()
    run_difficulty(store, executor=tally)
    return tally.row(store.scalar("SELECT count(*) FROM mcq_difficulty"))


def judge(tmp: Path, answers: int) -> dict:
    from benchmarks.bench_executor import ScriptedLatency
    from pipelines.judge import JudgeOptions, run_judge
    from tests.support.fake_server import FakeLLMServer
    from tests.support.lfvqa_rows import build_slice

    store = _store(tmp, "judge")
    build_slice(store, n_copies=max(1, answers // 4))
    with FakeLLMServer(ScriptedLatency(0.0)) as server:
        llm = {"base_url": server.base_url, "model": "fake-model", "concurrency": 8}
        tally = WireTally()
        summary = run_judge(store, JudgeOptions(backend="openai", llm=llm), executor=tally)
    verdicts = store.scalar(
        "SELECT count(*) FROM claim_verdicts WHERE run_id = ?", [summary["run_id"]]
    )
    return tally.row(verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--films", type=int, default=3)
    parser.add_argument("--answers", type=int, default=400)
    parser.add_argument("--only", default="plottree,difficulty,judge")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = args.only.split(",")
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "judge" in only:
            result["judge (openai)"] = judge(Path(tmp), args.answers)
        if "plottree" in only:
            result["plottree build"] = plottree(Path(tmp), args.films)
        if "difficulty" in only:
            result["difficulty"] = difficulty(Path(tmp))
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
