"""What the damaged-store check costs on every open.

`Store` opens the file for each unit of work and runs `store_health.quick_check` on each fresh
connection (file size against the catalog's block count, then every table's storage metadata).
This benchmark opens the same store N times with a plain `duckdb.connect` (the baseline) and
with `connect` + `quick_check` as every open runs it (size check; metadata known good) and as a
first open runs it (metadata read too), interleaved so machine load hits all alike, and
reports median and p95 per open and the ratios to the plain open. A `storyscope store check`
(every block read) is timed once for scale.

Usage: python benchmarks/bench_store_check.py [--store FILE] [--rows N] [--reps N] [--json OUT]
(without --store it builds a migrated store with N subtitle rows in a temp folder).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.store import Store  # noqa: E402
from data_access.store import health as store_health  # noqa: E402
from data_access.store.health import full_check, quick_check  # noqa: E402


def build_store(path: Path, rows: int) -> None:
    """A migrated store (every table of the schema) with `rows` subtitle cues."""
    store = Store(path)
    with store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO films (film_id, dataset_id, title, kind, run_id)"
            " VALUES ('f1', 'bench', 'Bench', 'film', 'r')"
        )
        cursor.execute(
            "INSERT INTO subtitles (film_id, cue_index, start_s, end_s, text, run_id)"
            " SELECT 'f1', i, i, i + 0.5, 'cue text number ' || i, 'r' FROM range(?) t(i)",
            [rows],
        )
    with store.session() as cursor:
        cursor.execute("CHECKPOINT")


def _open_checked(path: Path, first_open: bool) -> float:
    if first_open:
        store_health._metadata_ok.clear()  # as in a new process, or after the file changed
    start = time.perf_counter()
    connection = duckdb.connect(str(path))
    quick_check(connection, path)
    connection.close()
    return time.perf_counter() - start


def time_opens(path: Path, reps: int) -> dict[str, list[float]]:
    """Open times, the three kinds interleaved so machine load hits them alike."""
    times: dict[str, list[float]] = {"plain": [], "every_open": [], "first_open": []}
    _open_checked(path, first_open=True)
    for _ in range(reps):
        start = time.perf_counter()
        duckdb.connect(str(path)).close()
        times["plain"].append(time.perf_counter() - start)
        times["every_open"].append(_open_checked(path, first_open=False))
        times["first_open"].append(_open_checked(path, first_open=True))
    return times


def summary(times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 3),
    }


def ratio(times: list[float], baseline: list[float]) -> float:
    return round(statistics.median(times) / statistics.median(baseline), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path)
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--reps", type=int, default=60)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.store or Path(tmp) / "bench.duckdb"
        if args.store is None:
            build_store(path, args.rows)
        times = time_opens(path, args.reps)
        with duckdb.connect(str(path)) as connection:
            tables = connection.execute(
                "SELECT count(*) FROM duckdb_tables() WHERE NOT temporary"
            ).fetchone()[0]
            start = time.perf_counter()
            full_check(connection)
            full_s = time.perf_counter() - start
        result = {
            "store_bytes": path.stat().st_size,
            "tables": tables,
            "reps": args.reps,
            "plain_open": summary(times["plain"]),
            "open_with_check_every_open": summary(times["every_open"]),
            "open_with_check_first_open": summary(times["first_open"]),
            "ratio_every_open": ratio(times["every_open"], times["plain"]),
            "ratio_first_open": ratio(times["first_open"], times["plain"]),
            "full_check_s": round(full_s, 3),
        }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
