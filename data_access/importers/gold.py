"""Import the hand-made gold annotation of a sample film (samples/gold/).

A gold folder holds three parts, all written by the StoryScope authors:
- `lfvqa/`: the interchange format (docs/FORMAT.md) — events, presence, beliefs, meta-beliefs,
  questions with rubrics and evidence, answers, and the gold judge's verdicts;
- `scene_summaries.jsonl`: `{film_id, scene_index, summary}` per scene, stored as a new version
  of the film's current scenes with `summary_backend = 'gold'` (the interchange format's scenes
  table has no summary backend, and the times stay those the film's alignment computed);
- `mcq/<Source>_golden.json`: StoryVideoQA-style MCQs in the release's golden format.

Everything is written in one transaction by one run (step `import.gold`, backend `gold`, note
"hand-annotated by the StoryScope authors"), so every page that shows a run's backend shows
`gold`. Bad input raises `ImportFailure` naming file, record and field; the store is unchanged.
"""

from __future__ import annotations

from pathlib import Path

from data_access.formats.lfvqa_records import FORMAT_NAME
from data_access.importers.catalog import one_catalog_read
from data_access.importers.errors import ImportFailure, ImportReport, Problem, fail
from data_access.importers.json_files import JsonFileError, decode_utf8, loads_json
from data_access.importers.lfvqa import (
    _insert_dataset,
    diagnose_key_conflict,
    import_table_file,
    read_manifest,
    table_files,
)
from data_access.importers.rows import keys_present
from data_access.importers.store_tables import KeyConflict
from data_access.importers.svqa_golden import GOLDEN_SUFFIX, read_golden_file
from data_access.store import Store, append_rows
from data_access.store.interrupts import telling_interrupts
from data_access.tables.runs import RunSpec, finish_run, insert_run

GOLD_STEP = "import.gold"
GOLD_BACKEND = "gold"
GOLD_NOTE = "hand-annotated by the StoryScope authors"
SUMMARIES = "scene_summaries.jsonl"


def read_summaries(path: Path) -> list[dict]:
    """The summary rows of `scene_summaries.jsonl`; bad lines raise with line and field."""
    rows, problems = [], []
    # split on "\n" only: str.splitlines() also splits inside a string holding U+2028
    text = decode_utf8(path.read_bytes(), path.name)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        record = f"line {number}"
        try:
            item = loads_json(line, path.name, record)
        except JsonFileError as exc:
            problems.append(exc.problem)
            continue
        for field, kind in (("film_id", str), ("scene_index", int), ("summary", str)):
            value = item.get(field) if isinstance(item, dict) else None
            if not isinstance(value, kind) or isinstance(value, bool) or value == "":
                problems.append(Problem(path.name, record, field, f"must be a {kind.__name__}"))
        if not problems:
            rows.append({k: item[k] for k in ("film_id", "scene_index", "summary")})
    if problems:
        raise ImportFailure(problems[:10])
    return rows


def _insert_summaries(cursor, rows: list[dict], run_id: str, file: str) -> int:
    """A new version of each film's current scenes carrying the gold summaries."""
    by_film: dict[str, dict[int, str]] = {}
    for row in rows:
        by_film.setdefault(row["film_id"], {})[row["scene_index"]] = row["summary"]
    written = 0
    for film_id, summaries in by_film.items():
        scenes = cursor.execute(
            "SELECT scene_index FROM current_scenes WHERE film_id = ? ORDER BY scene_index",
            [film_id],
        ).fetchall()
        known = {s for (s,) in scenes}
        if not known:
            raise fail(file, "(file)", "film_id", f"no scenes of film {film_id!r} in the store")
        unknown = sorted(set(summaries) - known)
        if unknown:
            raise fail(file, "(file)", "scene_index", f"{film_id} has no scene {unknown[0]}")
        cursor.execute(
            "INSERT INTO scenes (film_id, scene_index, heading, location, time_of_day, start_s,"
            " end_s, time_source, summary, summary_backend, run_id)"
            " SELECT film_id, scene_index, heading, location, time_of_day, start_s, end_s,"
            " time_source, summary, summary_backend, ? FROM current_scenes WHERE film_id = ?",
            [run_id, film_id],
        )
        for index, summary in summaries.items():
            cursor.execute(
                "UPDATE scenes SET summary = ?, summary_backend = ?"
                " WHERE film_id = ? AND scene_index = ? AND run_id = ?",
                [summary, GOLD_BACKEND, film_id, index, run_id],
            )
        written += len(known)
    return written


def _mcq_rows(folder: Path) -> list[dict]:
    rows = []
    for path in sorted(folder.glob(f"*{GOLDEN_SUFFIX}")):
        rows += read_golden_file(path)
    return rows


def import_gold(store: Store, folder: str | Path) -> ImportReport:
    """Import one gold folder (see the module docstring) in a single transaction.

    Raises:
        ImportFailure: bad input, or MCQs already in the store; nothing was written.
    """
    folder = Path(folder)
    lfvqa = folder / "lfvqa"
    if not lfvqa.is_dir():
        raise fail(str(folder), "(folder)", "-", f"no lfvqa/ folder (format {FORMAT_NAME})")
    manifest = read_manifest(lfvqa)
    files = table_files(lfvqa)
    summaries = read_summaries(folder / SUMMARIES) if (folder / SUMMARIES).is_file() else []
    mcqs = _mcq_rows(folder / "mcq") if (folder / "mcq").is_dir() else []
    spec = RunSpec(
        step=GOLD_STEP,
        backend=GOLD_BACKEND,
        source=str(folder.resolve()),
        note=GOLD_NOTE,
        params={"dataset_id": manifest.dataset_id, "files": [p.name for _, p in files]},
    )
    try:
        told = telling_interrupts(store, GOLD_STEP, spec.source, f"the import of {folder}")
        with told, store.transaction() as cursor, one_catalog_read():
            present = keys_present(cursor, "mcq_questions", "mcq_id", [r["mcq_id"] for r in mcqs])
            if present:
                first = sorted(present)[0]
                raise fail("mcq", "(file)", "id", f"mcq_id {first!r} is already in the store")
            run_id = insert_run(cursor, spec)
            report = ImportReport(run_id, manifest.dataset_id, str(folder))
            _insert_dataset(cursor, manifest, run_id)
            for table_spec, path in files:
                report.rows[table_spec.table] = import_table_file(
                    cursor, table_spec, path, run_id, manifest.dataset_id
                )
            if summaries:
                report.rows["scenes"] = _insert_summaries(cursor, summaries, run_id, SUMMARIES)
            if mcqs:
                report.rows["mcq_questions"] = append_rows(
                    cursor,
                    "mcq_questions",
                    mcqs,
                    fixed={"run_id": run_id, "dataset_id": manifest.dataset_id},
                )
            finish_run(cursor, run_id, n_items=report.total_rows, n_failed=0)
    except KeyConflict as conflict:
        raise diagnose_key_conflict(store, conflict) from None
    return report
