"""Import a dataset folder in the interchange format (data_access/formats/lfvqa_records.py).

The whole import is one transaction: the run, the dataset row and every table file are written
by the same cursor, and any problem raises `ImportFailure` before COMMIT, so the store is left
exactly as it was. Files are checked and inserted in `TABLE_FILES` order (films before scenes,
questions before claims, ...), so a later file's references resolve against the store table,
which then holds this import's rows too.

Each import first takes the checked insert (importers/checked_insert.py: each file read once,
faults only detected); when it refuses a file, the import is rolled back and replayed on the
explaining path below, which stages each file with numbered records and names file, record and
field of every fault it finds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
from pydantic import ValidationError

from data_access.formats.lfvqa_records import FORMAT_NAME, Manifest
from data_access.formats.table_files import TABLE_FILES, TableFile
from data_access.importers import checks
from data_access.importers.catalog import one_catalog_read
from data_access.importers.checked_insert import Refused, checked_table_file
from data_access.importers.errors import EMPTY_FILE, ImportFailure, ImportReport, Problem, fail
from data_access.importers.fields import field_specs
from data_access.importers.folder_files import entries, looks_like_data, unreadable_problem
from data_access.importers.json_files import read_json_file
from data_access.importers.staging import StagedFile, drop_stage
from data_access.importers.staging_jsonl import stage_jsonl
from data_access.importers.staging_parquet import stage_parquet
from data_access.importers.store_tables import (
    KeyConflict,
    insert_table_rows,
    key_is_per_run,
    primary_key_guards,
    store_key,
)
from data_access.store import Store
from data_access.store.interrupts import telling_interrupts
from data_access.tables.dataset_ids import DatasetIdTaken, dataset_already_stored
from data_access.tables.runs import RunSpec, finish_run, insert_run

MANIFEST = "manifest.json"
IMPORT_STEP = "import.lfvqa"
SUFFIXES = (".jsonl", ".parquet")


# -- the folder ----------------------------------------------------------------------------
def _pydantic_problems(file: str, record: str, exc: ValidationError) -> list[Problem]:
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "-"
        got = f" (got {error['input']!r})" if error["type"] != "missing" else ""
        problems.append(Problem(file, record, field, error["msg"] + got))
    return problems


def read_manifest(folder: Path) -> Manifest:
    """The folder's `manifest.json`, validated (a UTF-8 BOM is tolerated)."""
    path = folder / MANIFEST
    if path.exists() or path.is_symlink():
        problem = unreadable_problem(path)
        if problem is not None:
            raise ImportFailure([problem])
    if not path.is_file():
        raise fail(
            MANIFEST,
            "(file)",
            "-",
            f"missing: {folder} has no {MANIFEST};"
            f" every dataset folder needs one (format {FORMAT_NAME})",
        )
    data = read_json_file(path, MANIFEST)
    if not isinstance(data, dict):
        raise fail(MANIFEST, "(file)", "-", "must be a JSON object")
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise ImportFailure(_pydantic_problems(MANIFEST, "(manifest)", exc)) from None


def _table_file_problem(path: Path, by_name: dict[str, TableFile]) -> Problem | None:
    """Why `path` is not a table file to import, or None when it is one (or not data at all)."""
    expected = f"one of: {', '.join(by_name)} (.jsonl or .parquet)"
    if path.suffix in SUFFIXES and len(path.suffixes) == 1:
        if path.stem in by_name:
            return unreadable_problem(path)
        return Problem(path.name, "(file)", "-", f"not a table of the format; expected {expected}")
    stem = path.name.split(".")[0]
    if stem.lower() in by_name and path.name != MANIFEST:
        wanted = f"{stem.lower()}.jsonl or {stem.lower()}.parquet"
        return Problem(
            path.name, "(file)", "-", f"not read: a table file must be named {wanted} exactly"
        )
    if looks_like_data(path) and path.name != MANIFEST:
        return Problem(
            path.name,
            "(file)",
            "-",
            f"not read: a data file with a name the format lacks; expected {expected}",
        )
    return None


def table_files(folder: Path) -> list[tuple[TableFile, Path]]:
    """The table files present in `folder`, in import order.

    Unknown, doubled, misspelt (`films.json`, `films.JSONL`, `films.jsonl.gz`) and unreadable
    table files (a folder, a FIFO, a dangling symlink) fail before anything is read; files that
    are not data (`README.md`) and hidden entries are ignored (docs/FORMAT.md).
    """
    by_name = {spec.name: spec for spec in TABLE_FILES}
    present: dict[str, Path] = {}
    problems = []
    for path in entries(folder):
        problem = _table_file_problem(path, by_name)
        if problem is not None:
            problems.append(problem)
        elif path.suffix not in SUFFIXES or len(path.suffixes) != 1:
            continue
        elif path.stem in present:
            problems.append(
                Problem(
                    path.name,
                    "(file)",
                    "-",
                    f"{present[path.stem].name} is there too; give each table once",
                )
            )
        else:
            present[path.stem] = path
    if problems:
        raise ImportFailure(problems)
    return [(spec, present[spec.name]) for spec in TABLE_FILES if spec.name in present]


# -- one table file, explained ------------------------------------------------------------
def _validate(cursor: duckdb.DuckDBPyConnection, staged: StagedFile, spec: TableFile) -> None:
    """Every check the model implies on the staged rows; raises on the first faults found."""
    faults = checks.row_faults(cursor, spec.table, spec.model)
    found = checks.first_faults(cursor, staged.stage, faults)
    if not found and spec.key and not primary_key_guards(cursor, spec):
        found = checks.duplicate_keys(cursor, staged.stage, spec.key)
        if not found and not key_is_per_run(cursor, spec.table):
            found = checks.keys_in_store(cursor, staged.stage, spec.table, spec.key)
    for key in spec.unique:
        if not found:
            found = checks.duplicate_keys(cursor, staged.stage, key)
        if not found and not key_is_per_run(cursor, spec.table):
            found = checks.keys_in_store(cursor, staged.stage, spec.table, key)
    by_name = {table.name: table for table in TABLE_FILES}
    for column, ref_file, ref_column in spec.references:
        if found:
            break
        found = checks.unknown_references(
            cursor, staged.stage, column, by_name[ref_file].table, ref_column, f"{ref_file}.jsonl"
        )
    for column, owner, ref_file, ref_owner, ref_column in spec.list_references:
        if not found:
            found = checks.duplicate_list_items(cursor, staged.stage, column)
        if not found:
            ref = (column, owner, by_name[ref_file].table, ref_owner, ref_column)
            found = checks.unknown_list_references(cursor, staged.stage, ref, f"{ref_file}.jsonl")
    if found:
        raise ImportFailure(staged.problems(found))


def diagnose_key_conflict(store: Store, conflict: KeyConflict) -> ImportFailure:
    """Name the records behind a primary-key violation (the import was rolled back)."""
    spec, path = conflict.spec, conflict.path
    staged = StagedFile(spec.name, path, path.suffix.lstrip("."), f"_diagnose_{spec.name}")
    with store.transaction() as cursor:  # the stage never outlives the diagnosis
        (stage_parquet if staged.fmt == "parquet" else stage_jsonl)(
            cursor, staged, field_specs(spec.model)
        )
        try:
            key = store_key(cursor, spec.table)
            found = checks.duplicate_keys(cursor, staged.stage, key)
            if not found and not key_is_per_run(cursor, spec.table):
                found = checks.keys_in_store(cursor, staged.stage, spec.table, key)
        finally:
            drop_stage(cursor, staged)
    if found:
        return ImportFailure(staged.problems(found))
    return fail(path.name, "(file)", "-", f"rejected by the store: {conflict.detail}")


def import_table_file(
    cursor: duckdb.DuckDBPyConnection, spec: TableFile, path: Path, run_id: str, dataset_id: str
) -> int:
    """Stage, check and insert one table file, naming the records of any fault; return the rows
    written."""
    fmt = path.suffix.lstrip(".")
    staged = StagedFile(spec.name, path, fmt, f"_stage_{spec.name}")
    specs = field_specs(spec.model)
    (stage_parquet if fmt == "parquet" else stage_jsonl)(cursor, staged, specs)
    staged.n_rows = cursor.execute(f"SELECT count(*) FROM {staged.stage}").fetchone()[0]
    if staged.n_rows == 0:
        raise fail(path.name, "(file)", "-", EMPTY_FILE)
    _validate(cursor, staged, spec)
    source = (f"SELECT * FROM {staged.stage}", [])
    written = insert_table_rows(cursor, spec, path, source, (run_id, dataset_id))
    drop_stage(cursor, staged)
    return written


# -- the whole import ----------------------------------------------------------------------
def _insert_dataset(cursor: duckdb.DuckDBPyConnection, manifest: Manifest, run_id: str) -> bool:
    """Add the dataset row unless the store has it already (a second batch of the same set)."""
    # one dataset_id, one dataset: another one under it is refused (data_access.tables.dataset_ids)
    try:
        if dataset_already_stored(cursor, manifest.dataset_id, manifest.model_dump()):
            return False
    except DatasetIdTaken as exc:
        raise fail("manifest.json", "(manifest)", "dataset_id", str(exc)) from None
    cursor.execute(
        "INSERT INTO datasets (dataset_id, name, kind, source, licence, reported_by_paper, run_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            manifest.dataset_id,
            manifest.name,
            manifest.kind,
            manifest.source,
            manifest.licence,
            manifest.reported_by_paper,
            run_id,
        ],
    )
    return True


def import_lfvqa_dir(store: Store, folder: str | Path) -> ImportReport:
    """Import one interchange-format folder in a single transaction.

    Args:
        store: the store to write to.
        folder: a folder with `manifest.json` and `<table>.jsonl` / `<table>.parquet` files.

    Returns:
        The run id, dataset id and rows written per store table.

    Raises:
        ImportFailure: the input is bad; each problem names file, record and field, and
            nothing was written.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise fail(str(folder), "(folder)", "-", "not a folder")
    manifest = read_manifest(folder)
    files = table_files(folder)
    if not files:
        raise fail(str(folder), "(folder)", "-", "no table files (.jsonl or .parquet) to import")
    run_spec = RunSpec(
        step=IMPORT_STEP,
        backend="import",
        source=str(folder.resolve()),
        reported_by_paper=manifest.reported_by_paper,
        params={
            "dataset_id": manifest.dataset_id,
            "format": manifest.format,
            "version": manifest.version,
            "files": [p.name for _, p in files],
        },
    )
    with telling_interrupts(store, IMPORT_STEP, run_spec.source, f"the import of {folder}"):
        return _checked_then_explained(store, folder, manifest, files, run_spec)


def _checked_then_explained(
    store: Store,
    folder: Path,
    manifest: Manifest,
    files: list[tuple[TableFile, Path]],
    run_spec: RunSpec,
) -> ImportReport:
    """The import by the checked insert; when it refuses, rolled back and replayed on the
    explaining path, which names the records at fault (module docstring)."""
    try:
        return _write(store, folder, manifest, files, run_spec, checked_table_file)
    except Refused as refused:
        checked_refusal = refused  # a fault: the explaining path names its records
    try:
        report = _write(store, folder, manifest, files, run_spec, import_table_file)
    except KeyConflict as conflict:
        raise diagnose_key_conflict(store, conflict) from None
    # Both paths run the same checks, so one of them differs (or the first attempt met a passing
    # error of the machine); the explaining path is the reference, so its import stands, and
    # says so.
    report.notes.append(
        f"the checked insert refused {checked_refusal}, the explaining path did not"
    )
    return report


def _write(
    store: Store,
    folder: Path,
    manifest: Manifest,
    files: list[tuple[TableFile, Path]],
    run_spec: RunSpec,
    write_file: Callable[[duckdb.DuckDBPyConnection, TableFile, Path, str, str], int],
) -> ImportReport:
    """The import in one transaction, each table file written by `write_file` (the checked
    insert or the explaining path, which take the same arguments)."""
    with store.transaction() as cursor, one_catalog_read():
        run_id = insert_run(cursor, run_spec)
        report = ImportReport(run_id, manifest.dataset_id, str(folder))
        if not _insert_dataset(cursor, manifest, run_id):
            report.notes.append(f"dataset {manifest.dataset_id} was already in the store")
        for spec, path in files:
            report.rows[spec.table] = write_file(cursor, spec, path, run_id, manifest.dataset_id)
        finish_run(cursor, run_id, n_items=report.total_rows, n_failed=0)
    return report
