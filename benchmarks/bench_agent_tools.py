"""Agent tool latency (LF-VideoQA §4.3 tools, `pipelines.agents.tools`) on the largest film of the
real-data demo store, The Departed (`storyscope demo --data-dir ../shared/data`), against a
plain pandas scan of the same rows, measured in one run.

For each tier: the index's load (one query per table), then each tool called `--calls` times
(seeded queries and intervals; the first call of each tool, which builds its ranker, reported
apart as `first`) through `call_tool`, and beside each call the baseline: a plain pandas scan
of the rows the tool reads (a case-insensitive `str.contains` of the query's longest word over
the searched text column; an interval tool: the rows overlapping the interval, by a boolean
mask on start_s / end_s). Reported per (tier, tool): the median and 95th percentile of the
tool's seconds, and the ratio of the medians tool / scan.

The model behind vqa, browse_clip (regular) and character_presence (regular) is a stand-in
that answers at once, so the figures are the tools' own work (building the request, sampling
frames, formatting); the demo store's films have no registered video, so they take the
documented text fallback. The Departed has no captions: the fast tier is measured on an index
whose captions are stand-ins (one per 10 seconds, the chunk's subtitles as its text), the same
number of rows a captioner writes.

Seconds depend on the machine and its load (`uptime` is printed): compare the ratios.
Skips (exit 0) when the store or the film is absent.

Usage: python benchmarks/bench_agent_tools.py [--store data/storyscope.duckdb]
       [--film "IMDB-046-The Departed"] [--calls 30] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.store import Store, default_store_path  # noqa: E402
from pipelines.agents.tools import TIERS, FilmIndex, call_tool, tool_names  # noqa: E402
from pipelines.agents.tools.search import scene_texts, subtitle_windows  # noqa: E402

FILM = "IMDB-046-The Departed"
QUERIES = [
    "the state police academy",
    "who is the rat in the unit",
    "a phone call on the roof",
    "Costello at the bar",
    "the envelope with names",
    "undercover meeting with the captain",
    "funeral",
    "the psychiatrist's office",
    "a shooting in the elevator",
    "money and drugs at the docks",
]


def fast_stand_in(index: FilmIndex) -> FilmIndex:
    """The regular index with stand-in captions: one per 10 s, the chunk's subtitles as text."""
    cues = index.tables["subtitles"]
    rows = []
    for chunk, start in enumerate(range(0, int(index.duration_s), 10)):
        inside = cues[(cues["start_s"] >= start) & (cues["start_s"] < start + 10)]
        text = " ".join(inside["text"]) or "A quiet moment."
        rows.append([chunk, float(start), float(start + 10), text, "stand-in"])
    data = index.to_dict()
    data["tier"] = "fast"
    data["tables"]["captions"] = {
        "columns": ["chunk_index", "start_s", "end_s", "caption", "captioner"],
        "rows": rows,
    }
    data["tables"]["caption_names"] = {"columns": ["name"], "rows": []}
    return FilmIndex.from_dict(data, ask=index.ask)


def searched_text(index: FilmIndex, tool: str) -> pd.Series:
    """The text column a retrieval tool searches, as a pandas Series (the baseline's rows)."""
    if tool == "subtitle_search":
        return index.tables["subtitles"]["text"]
    if index.tier == "fast":
        return index.tables["captions"]["caption"]
    if index.tier == "oracle":
        return pd.Series(scene_texts(index))
    return pd.Series([text for _, _, text in subtitle_windows(index)])


def interval_rows(index: FilmIndex, tool: str) -> pd.DataFrame:
    """The rows an interval tool reads in this tier (the baseline's rows)."""
    if index.tier == "oracle":
        return index.tables["scenes"]
    if index.tier == "fast" and tool != "vqa":
        return index.tables["captions"]
    return index.tables["subtitles"]


def scan(rows, arguments: dict):
    """The plain pandas scan of the same rows: a text column for a query, a frame of spans for
    an interval."""
    if "query" in arguments:
        word = max(re.findall(r"\w+", arguments["query"]), key=len)
        return rows[rows.str.contains(word, case=False, regex=False)]
    return rows[(rows["start_s"] < arguments["end"]) & (rows["end_s"] > arguments["start"])]


def baseline_rows(index: FilmIndex, tool: str):
    if tool in ("subtitle_search", "find_clips"):
        return searched_text(index, tool)
    return interval_rows(index, tool)


def calls(tool: str, duration: float, count: int, rng: random.Random) -> list[dict]:
    if tool in ("subtitle_search", "find_clips"):
        return [{"query": QUERIES[i % len(QUERIES)]} for i in range(count)]
    out = []
    for _ in range(count):
        start = rng.uniform(0, duration - 300)
        arguments = {"start": round(start, 1), "end": round(start + rng.uniform(30, 300), 1)}
        if tool == "vqa":
            arguments["question"] = "Who is talking, and about what?"
        out.append(arguments)
    return out


def timed(fn) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def measure(index: FilmIndex, count: int, rng: random.Random) -> list[dict]:
    rows = []
    for tool in tool_names():
        arguments = calls(tool, index.duration_s, count + 1, rng)
        first = timed(partial(call_tool, index, tool, arguments[0]))
        baseline = baseline_rows(index, tool)  # built outside the timing, as the tools' are
        tool_s = [timed(partial(call_tool, index, tool, a)) for a in arguments[1:]]
        scan_s = [timed(partial(scan, baseline, a)) for a in arguments[1:]]
        rows.append(
            {
                "tier": index.tier,
                "tool": tool,
                "ranker": index.rankers.get((tool, index.tier), ""),
                "first_s": first,
                "median_s": statistics.median(tool_s),
                "p95_s": p95(tool_s),
                "scan_median_s": statistics.median(scan_s),
                "scan_p95_s": p95(scan_s),
                "ratio": statistics.median(tool_s) / statistics.median(scan_s),
            }
        )
    return rows


def load_indexes(store, film_id: str) -> tuple[dict[str, FilmIndex], dict[str, float]]:
    """Each tier's index and its load time (the fast one: stand-in captions, no load)."""
    ask = lambda messages: "An answer."  # noqa: E731 (the model's stand-in: answers at once)
    indexes, loads = {}, {}
    for tier in ("regular", "oracle"):
        began = time.perf_counter()
        indexes[tier] = FilmIndex.load(store, film_id, tier, ask=ask)
        loads[tier] = time.perf_counter() - began
    indexes["fast"] = fast_stand_in(indexes["regular"])
    return {tier: indexes[tier] for tier in TIERS}, loads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=str(default_store_path()))
    parser.add_argument("--film", default=FILM)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--json")
    args = parser.parse_args()
    if not Path(args.store).is_file():
        print(f"skipped: no store at {args.store} (build one: storyscope demo --data-dir ...)")
        return
    store = Store(args.store, read_only=True)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"load: {load}")
    try:
        indexes, loads = load_indexes(store, args.film)
    except ValueError as exc:
        print(f"skipped: {exc}")
        return
    rng = random.Random(43)
    rows = [row for index in indexes.values() for row in measure(index, args.calls, rng)]
    index = indexes["oracle"]
    sizes = {name: len(frame) for name, frame in index.tables.items()}
    print(f"film: {args.film}, {index.duration_s / 60:.0f} min; oracle rows: {sizes}")
    print(
        "index load (s; fast: stand-in captions, not loaded): "
        + ", ".join(f"{t} {s:.3f}" for t, s in loads.items())
    )
    print(f"{args.calls} calls per tool; seconds; ratio = tool median / pandas-scan median")
    head = f"{'tier':<8} {'tool':<19} {'ranker':<9} {'first':>7} {'median':>8} {'p95':>8}"
    print(head + f" {'scan med':>9} {'scan p95':>9} {'ratio':>7}")
    for r in rows:
        print(
            f"{r['tier']:<8} {r['tool']:<19} {r['ranker']:<9} {r['first_s']:>7.3f}"
            f" {r['median_s']:>8.4f} {r['p95_s']:>8.4f} {r['scan_median_s']:>9.5f}"
            f" {r['scan_p95_s']:>9.5f} {r['ratio']:>7.1f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"load": load, "loads": loads, "rows": rows}))


if __name__ == "__main__":
    main()
