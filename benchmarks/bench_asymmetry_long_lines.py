"""The asymmetry belief backend on one very long direction line: is its cost linear in the text?

A film of one scene whose direction line is N characters long (a short action sentence about
two speaking characters, repeated; and the same words with no sentence end at all) is annotated
with `annotate(store, film, "asymmetry")` at N = 50,000 and N = 200,000 in the same run, after
a warm-up that loads the embedding model. A linear cost gives a ratio near 4 (less, for the
fixed cost of a run), a quadratic one near 16: a 200,000-character line once took 898 s against
28 s for 50,000 (the names of a line compared pairwise, the rest of the line copied once per
name, and the witness cue "... and X saw it" tried from every "and" to the line's end).

Usage: python benchmarks/bench_asymmetry_long_lines.py [--small 50000] [--large 200000] [--json OUT]
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
from pipelines.beliefs.annotate import annotate  # noqa: E402

SHAPES = {
    "sentences": "NORA puts the ledger in the drawer. SAM walks to the hall and looks at the clock."
    " ",
    "one sentence": "Nora walks and Sam runs to the old hall while ",
}


def film_store(folder: Path, text: str) -> Store:
    store = Store(folder / "bench.duckdb")
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("preprocess.film", backend="bench"))
        film = {"film_id": "f", "dataset_id": "bench", "title": "Long line", "kind": "film"}
        belief_records.ensure_films(cursor, [film], run_id)
        scene = {"film_id": "f", "scene_index": 0, "heading": "INT. HALL", "location": "HALL"}
        append_rows(
            cursor, "scenes", [scene], belief_records.COLUMNS["scenes"], fixed={"run_id": run_id}
        )
        rows = [
            (0, "direction", None, text),
            (1, "dialogue", "NORA", "Hello, Sam."),
            (2, "dialogue", "SAM", "Hello, Nora."),
        ]
        lines = [
            {"film_id": "f", "line_index": n, "scene_index": 0, "kind": k, "character": c,
             "text": t}
            for n, k, c, t in rows
        ]  # fmt: skip
        append_rows(
            cursor,
            "script_lines",
            lines,
            belief_records.COLUMNS["script_lines"],
            fixed={"run_id": run_id},
        )
        finish_run(cursor, run_id)
    return store


def seconds_for(unit: str, length: int) -> float:
    text = (unit * (length // len(unit) + 1))[:length]
    with tempfile.TemporaryDirectory() as folder:
        store = film_store(Path(folder), text)
        started = time.perf_counter()
        annotate(store, "f", "asymmetry")
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=50_000)
    parser.add_argument("--large", type=int, default=200_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seconds_for(SHAPES["sentences"], 1_000)  # warm-up: the embedding model loads once
    report = {}
    for shape, unit in SHAPES.items():
        small, large = seconds_for(unit, args.small), seconds_for(unit, args.large)
        report[shape] = {"small_s": small, "large_s": large, "ratio": large / small}
        print(
            f"{shape:>12}: {args.small:,} chars {small:6.2f} s, {args.large:,} chars"
            f" {large:6.2f} s, ratio {large / small:5.2f}"
            f" (length ratio {args.large / args.small:g}; quadratic would be"
            f" {(args.large / args.small) ** 2:g})"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
