"""Store benchmark across scales: every page's data queries at 1x and 10x.

For each scale named in `--scale` (`paper`, `10x`, or any name in `pipelines.synth.SCALES`), the
store `DIR/<scale>.duckdb` is used if it exists; otherwise the synthetic dataset `DIR/<scale>/`
is written (if missing) and imported, and the import is timed against DuckDB's raw load of the
same files (`bench_import.raw_load`, same run).

Then each page's default-view queries (`bench_pages.page_queries`: the functions and arguments a
page's default load runs) are timed on every scale as the app makes them (a Store lingering after
use, ui/common.py), each the median of `--reps` calls, the scales taking turns rep by rep.
A page's figure is the median over reps of the sum of its queries. Target: each
page's figure at the largest scale ≤ 1.5x its figure at the smallest; the queries whose own ratio
exceeds 1.5 are named (queries under `--floor-ms` at both scales are not named: their ratio is
timer noise).

Usage: python benchmarks/bench_store.py [--scale paper,10x] [--dir DIR] [--reps 7] [--json OUT]
    [--pages questions,distributions]
(without --dir, the stores are built in a temp folder and deleted; with it, `DIR/<scale>.duckdb`
is reused as it is, migrated first if this code has newer migrations: work on a copy)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from data_access.store import Store  # noqa: E402

TARGET_RATIO = 1.5


def ensure_store(directory: Path, scale: str) -> tuple[Path, dict | None]:
    """The scale's store, built from its synthetic dataset when missing (with the import's
    figures; None when the store already existed)."""
    from benchmarks.bench_import import fresh_store, raw_load, timed

    path = directory / f"{scale}.duckdb"
    if path.exists():
        return path, None
    data = directory / scale
    if not data.exists():
        from pipelines.synth import write_synthetic_dataset

        print(f"writing the {scale} synthetic dataset ...", flush=True)
        write_synthetic_dataset(data, scale=scale)
    raw = timed(lambda: raw_load(data, "parquet", directory / f"{scale}-raw.duckdb"))
    (directory / f"{scale}-raw.duckdb").unlink()
    store = fresh_store(path)
    from data_access.importers import import_lfvqa_dir

    ours = timed(lambda: import_lfvqa_dir(store, data))
    return path, {
        "raw_wall_s": round(raw[0], 1),
        "import_wall_s": round(ours[0], 1),
        "ratio_wall": round(ours[0] / raw[0], 2),
        "ratio_cpu": round(ours[1] / raw[1], 2),
        "load_avg": round(os.getloadavg()[0], 1),
    }


def wait_for_quiet(max_load: float, poll_s: float = 15.0) -> None:
    """Wait until the 1-minute load average is at most `max_load` (a shared machine: timings
    taken beside someone's test run say more about that run than about the store)."""
    while (load := os.getloadavg()[0]) > max_load:
        print(f"load {load:.1f} > {max_load:g}: waiting ...", flush=True)
        time.sleep(poll_s)


def _ms(fn, store: Store, args: tuple) -> float:
    start = time.perf_counter()
    fn(store, *args)
    return (time.perf_counter() - start) * 1000.0


def page_timings(
    stores: dict[str, Store], reps: int, only: list[str] | None = None
) -> dict[str, dict[str, dict]]:
    """Per scale and page: the median of its queries' summed time, and each query's median (ms).

    The scales take turns rep by rep (page by page), so a change in the machine's load during
    the run hits every scale alike instead of the scale that happened to run then. `only`
    names the pages to time (default: every page)."""
    from benchmarks.bench_pages import page_queries

    calls = {scale: page_queries(store) for scale, store in stores.items()}
    pages = [page for page in next(iter(calls.values())) if all(page in c for c in calls.values())]
    if only:
        unknown = sorted(set(only) - set(pages))
        if unknown:
            raise SystemExit(f"--pages: no page {', '.join(unknown)} (pages: {', '.join(pages)})")
        pages = [page for page in pages if page in only]
    out: dict[str, dict[str, dict]] = {scale: {} for scale in stores}
    for page in pages:
        samples: dict[str, list[list[float]]] = {scale: [] for scale in stores}
        for scale, store in stores.items():
            for fn, args in calls[scale][page]:
                fn(store, *args)  # warm the OS page cache and DuckDB's buffer once
        for _ in range(reps):
            for scale, store in stores.items():
                samples[scale].append([_ms(fn, store, args) for fn, args in calls[scale][page]])
        for scale in stores:
            per_query = {}
            for i, (fn, _) in enumerate(calls[scale][page]):
                name = f"{fn.__module__.split('.')[-1]}.{fn.__name__}"
                per_query[name] = round(statistics.median(s[i] for s in samples[scale]), 2)
            out[scale][page] = {
                "page_ms": round(statistics.median(sum(s) for s in samples[scale]), 2),
                "queries_ms": per_query,
                "load_avg": round(os.getloadavg()[0], 1),
            }
    return out


def compare(small: dict, large: dict, floor_ms: float) -> list[dict]:
    """Per page: the ratio of its figure, and the queries that grew faster than the target."""
    rows = []
    for page, big in large.items():
        base = small.get(page)
        if base is None:
            continue
        growing = {
            name: round(ms / max(base["queries_ms"].get(name, 0.0), 1e-3), 2)
            for name, ms in big["queries_ms"].items()
            if max(ms, base["queries_ms"].get(name, 0.0)) >= floor_ms
            and ms > TARGET_RATIO * base["queries_ms"].get(name, 0.0)
        }
        ratio = big["page_ms"] / max(base["page_ms"], 1e-3)
        rows.append(
            {
                "page": page,
                "small_ms": base["page_ms"],
                "large_ms": big["page_ms"],
                "ratio": round(ratio, 2),
                "met": ratio <= TARGET_RATIO,
                "growing_queries": growing,
            }
        )
    return rows


def markdown(rows: list[dict], scales: list[str]) -> str:
    lines = [
        f"| page | {scales[0]} ms | {scales[-1]} ms | ratio | target ≤ {TARGET_RATIO} "
        "| queries growing faster (ratio) |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    for row in rows:
        growing = ", ".join(f"{k} ({v})" for k, v in row["growing_queries"].items()) or "—"
        lines.append(
            f"| {row['page']} | {row['small_ms']:.1f} | {row['large_ms']:.1f} | {row['ratio']:.2f}"
            f" | {'met' if row['met'] else 'MISSED'} | {growing} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", default="paper", help="comma-separated scale names")
    parser.add_argument("--dir", type=Path, help="folder of the scales' stores (default: temp)")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--floor-ms", type=float, default=5.0)
    parser.add_argument(
        "--max-load", type=float, help="wait until the 1-minute load average is at most this"
    )
    parser.add_argument(
        "--pages", help="comma-separated pages to time, e.g. questions,distributions (default: all)"
    )
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    scales = [s.strip() for s in options.scale.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        options.dir = options.dir or Path(tmp)
        options.dir.mkdir(parents=True, exist_ok=True)
        run(options, scales)


def run(options: argparse.Namespace, scales: list[str]) -> None:
    result: dict = {"scales": {}}
    stores = {}
    for scale in scales:
        path, ingest = ensure_store(options.dir, scale)
        stores[scale] = Store(path, linger_s=0.25)  # as ui/common.py opens it
        result["scales"][scale] = {"ingest": ingest}
    only = [p.strip() for p in (options.pages or "").split(",") if p.strip()]
    if options.max_load is not None:
        wait_for_quiet(options.max_load)
    result["load_avg_at_start"] = round(os.getloadavg()[0], 1)
    for scale, pages in page_timings(stores, options.reps, only).items():
        result["scales"][scale]["pages"] = pages
        print(json.dumps({scale: result["scales"][scale]}, indent=1), flush=True)
    if len(scales) > 1:
        first, last = (result["scales"][s]["pages"] for s in (scales[0], scales[-1]))
        result["comparison"] = compare(first, last, options.floor_ms)
        print(markdown(result["comparison"], scales))
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    if options.json:
        options.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
