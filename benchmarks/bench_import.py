"""Import speed against DuckDB's raw load.

For Parquet and JSONL copies of one synthetic dataset (the paper-scale shapes divided by
`--divisor`: the default 8 gives ~100k claim verdicts and ~900k MCQ predictions), each rep runs,
interleaved so the machine's load hits both alike:

- raw: DuckDB's own load of the same files into a fresh database (`CREATE TABLE t AS SELECT *
  FROM read_parquet / read_json`), no checks, no keys;
- import: `import lfvqa` into a fresh migrated store, end to end: validation, insert, the rollup
  update of the finished run, COMMIT.

Then a second batch into the loaded store (a new judge's verdicts on a quarter of the answers,
spread over every film, or on one film's answers; and a new method's predictions on a quarter
of the MCQs), beside its raw load, and the full rollup refresh the incremental update replaces.

Wall and CPU seconds (this process, all DuckDB threads) are reported; `ratio_wall` is taken from
the best rep of each, `ratio_wall_paired` is the median over reps of each rep's import / raw
(the two run back to back, so a slow spell of the machine hits both; the best-of-each ratio
moves with whichever of the two had the luckier rep). On a shared machine wall time mostly
measures the neighbours, so the load average is printed with each figure.

Usage: python benchmarks/bench_import.py [--divisor 8] [--reps 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

READERS = {"parquet": "read_parquet(?)", "jsonl": "read_json(?, format='newline_delimited')"}


def scaled_dataset(out: Path, divisor: int, fmt: str) -> int:
    """Write the paper-scale synthetic shapes divided by `divisor`; return the rows written."""
    from pipelines.synth import write_synthetic_dataset
    from pipelines.synth.scales import SCALES

    paper = SCALES["paper"]
    name = f"paper-div{divisor}"
    SCALES[name] = dataclasses.replace(
        paper,
        name=name,
        films=max(2, paper.films // divisor),
        type_counts={t: max(1, c // divisor) for t, c in paper.type_counts.items()},
        mcq_per_source={s: max(1, c // divisor) for s, c in paper.mcq_per_source.items()},
    )
    return sum(write_synthetic_dataset(out, scale=name, fmt=fmt).values())


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of `fn()`."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def raw_load(data: Path, fmt: str, db_path: Path) -> None:
    """DuckDB's own load of every table file, no checks (the baseline)."""
    db_path.unlink(missing_ok=True)
    con = duckdb.connect(str(db_path))
    for file in sorted(data.glob(f"*.{fmt}")):
        con.execute(f"CREATE TABLE {file.stem} AS SELECT * FROM {READERS[fmt]}", [str(file)])
    con.close()


def fresh_store(path: Path):
    from data_access.store import Store, forget_schema_cache

    path.unlink(missing_ok=True)
    forget_schema_cache()  # the same path again: migrate the new file
    store = Store(path, lock_timeout=600)
    with store.session():
        pass  # creating the schema is not part of the import
    return store


def second_batch(data: Path, out: Path, one_film: bool = False) -> None:
    """A new judge's verdicts on a quarter of the answers (or on every answer of one film) and
    a new method's predictions on a quarter of the MCQs, as a Parquet dataset folder."""
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((data / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(dict(manifest, dataset_id="second-batch")))
    con = duckdb.connect()
    answers = (
        f"SELECT a.answer_id FROM read_parquet('{data / 'answers.parquet'}') a"
        f" JOIN read_parquet('{data / 'questions.parquet'}') q USING (question_id)"
        f" WHERE q.film_id = (SELECT min(film_id) FROM read_parquet('{data / 'films.parquet'}'))"
    )
    which = f"answer_id IN ({answers})" if one_film else "hash(answer_id) % 4 = 0"
    copies = {
        "judges": "SELECT 'judge-2' AS judge_id, kind, backend, model, prompt_version FROM {}",
        "claim_verdicts": "SELECT 'judge-2' AS judge_id, answer_id, claim_id, verdict FROM {}"
        f" WHERE {which}",
        "mcq_predictions": "SELECT mcq_id, 'method-new' AS method, any_value(predicted_option)"
        " AS predicted_option FROM {} WHERE hash(mcq_id) % 4 = 0 GROUP BY mcq_id",
    }
    for table, select in copies.items():
        source = f"read_parquet('{data / (table + '.parquet')}')"
        select = select.replace("{}", source)  # {} stands for the table file
        con.execute(f"COPY ({select}) TO '{out / (table + '.parquet')}'")
    con.close()


def fresh_imports(tmp: Path, divisor: int, reps: int) -> dict:
    from data_access.importers import import_lfvqa_dir

    results = {}
    for fmt in ("parquet", "jsonl"):
        data = tmp / f"data-{fmt}"
        rows = scaled_dataset(data, divisor, fmt)
        raws, ours = [], []
        for _ in range(reps):
            raws.append(timed(lambda d=data, f=fmt: raw_load(d, f, tmp / "raw.duckdb")))
            store = fresh_store(tmp / "store.duckdb")
            ours.append(timed(lambda s=store, d=data: import_lfvqa_dir(s, d)))
        raw, our = min(raws), min(ours)
        raw_cpu, our_cpu = min(c for _, c in raws), min(c for _, c in ours)
        results[fmt] = {
            "rows": rows,
            "raw_wall_s": round(raw[0], 2),
            "import_wall_s": round(our[0], 2),
            "ratio_wall": round(our[0] / raw[0], 2),
            "ratio_wall_paired": round(
                statistics.median(o[0] / r[0] for o, r in zip(ours, raws)), 2
            ),
            "raw_cpu_s": round(raw_cpu, 2),
            "import_cpu_s": round(our_cpu, 2),
            "ratio_cpu": round(our_cpu / raw_cpu, 2),
            "load_avg": round(os.getloadavg()[0], 1),
        }
        print(json.dumps({f"fresh import ({fmt})": results[fmt]}), flush=True)
    return results


def batch_import(tmp: Path, one_film: bool) -> dict:
    """A second batch into a store holding the fresh Parquet dataset."""
    from data_access import rollups
    from data_access.importers import import_lfvqa_dir

    data, batch = tmp / "data-parquet", tmp / f"batch-{one_film}"
    second_batch(data, batch, one_film)
    store = fresh_store(tmp / "store.duckdb")
    import_lfvqa_dir(store, data)
    raw = timed(lambda: raw_load(batch, "parquet", tmp / "raw.duckdb"))
    ours = timed(lambda: import_lfvqa_dir(store, batch))
    assert rollups.rollups_fresh(store)
    full = timed(lambda: rollups.refresh(store))
    result = {
        "raw_wall_s": round(raw[0], 3),
        "import_wall_s": round(ours[0], 3),
        "import_cpu_s": round(ours[1], 3),
        "ratio_wall": round(ours[0] / raw[0], 2),
        "full_rollup_refresh_wall_s": round(full[0], 3),
        "full_rollup_refresh_cpu_s": round(full[1], 3),
        "load_avg": round(os.getloadavg()[0], 1),
    }
    label = "one film's answers" if one_film else "a quarter of the answers"
    print(json.dumps({f"second batch (parquet, {label})": result}), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--divisor", type=int, default=8, help="paper scale / divisor")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_import_"))
    try:
        result = {
            "fresh": fresh_imports(tmp, args.divisor, args.reps),
            "batch_quarter": batch_import(tmp, one_film=False),
            "batch_one_film": batch_import(tmp, one_film=True),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
