"""The agent retrieval tools' rankers on the gold film's questions: lexical (BM25) against
embedding (all-MiniLM-L6-v2), per tool and tier (pipelines.agents.tools.coverage).

For every question of the film, its text is the query; reported per (tool, tier, ranker): the
mean share of the question's evidence scenes (the answer key's `question_evidence`) that the
spans of the tool's top 5 results overlap, and the share of questions whose top result overlaps
one of them, and (for context: a longer span covers more by its length alone) the mean share of
the film's runtime the top 5 spans cover. The default ranker of each tool and tier
(`DEFAULT_RANKERS`) is the one with the higher mean share here, BM25 on a tie (no model to load).

The film is The Keeper's Ledger with its hand-made gold (built in a temporary store, as the
tests do), or `--store S --film F` for any film of a store with questions and evidence. A tier
whose data the film lacks (the fast tier without captions) is reported as such.

Usage: python benchmarks/bench_agent_retrieval.py [--store S --film F] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.queries.agent_index import evidence_scene_spans  # noqa: E402
from data_access.store import Store  # noqa: E402
from pipelines.agents.tools import TIERS, FilmIndex, ToolError  # noqa: E402
from pipelines.agents.tools.coverage import RETRIEVAL_TOOLS, evidence_coverage  # noqa: E402
from pipelines.agents.tools.ranking import RANKERS  # noqa: E402


def gold_store(folder: str) -> tuple[Store, str]:
    from tests.support.gold_film import GOLD_FILM_ID, with_gold_film

    return with_gold_film(Store(os.path.join(folder, "gold.duckdb"))), GOLD_FILM_ID


def measure(store: Store, film_id: str) -> tuple[list[dict], int]:
    evidence = evidence_scene_spans(store, film_id)
    rows = []
    for tier in TIERS:
        index = FilmIndex.load(store, film_id, tier)
        tools = ["find_clips"] if tier != "regular" else list(RETRIEVAL_TOOLS)
        # subtitle_search reads the same subtitle track in every tier: measured once (regular)
        for tool in tools:
            for ranker in RANKERS:
                try:
                    rows.append(asdict(evidence_coverage(index, evidence, tool, ranker)))
                except ToolError as exc:
                    rows.append({"tool": tool, "tier": tier, "ranker": ranker, "error": str(exc)})
    return rows, evidence["question_id"].nunique()


def print_table(rows: list[dict], questions: int) -> None:
    print(f"questions: {questions}; top 5 results; query = the question's text")
    print(
        f"{'tool':<16} {'tier':<8} {'ranker':<10} {'evidence covered':>16} {'top-1 hit':>10}"
        f" {'runtime spanned':>16}"
    )
    for row in rows:
        if "error" in row:
            what = row["error"].split(",")[0][:60]
            print(f"{row['tool']:<16} {row['tier']:<8} {row['ranker']:<10} n/a: {what}")
            continue
        print(
            f"{row['tool']:<16} {row['tier']:<8} {row['ranker']:<10}"
            f" {row['evidence_share']:>16.3f} {row['top1_hit']:>10.3f}"
            f" {row['runtime_share']:>16.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="a store (default: the gold film in a temporary one)")
    parser.add_argument("--film", help="the film of --store")
    parser.add_argument("--json", help="write the rows here too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.store:
            store, film_id = Store(args.store), args.film
        else:
            store, film_id = gold_store(folder)
        rows, questions = measure(store, film_id)
    print_table(rows, questions)
    if args.json:
        Path(args.json).write_text(json.dumps({"questions": questions, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
