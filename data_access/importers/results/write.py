"""The results write path: a harness run's samples in as ordinary answers or MCQ predictions.

One transaction: the samples are staged, checked, linked and written through the importers'
`insert_table_rows` (the same INSERT `import lfvqa` uses for `settings`, `answers` and
`mcq_predictions`, which derives a prediction's `correct` from its MCQ), under a run of step
`import.results` finished with `finish_run` (so the rollups count the new rows). Any fault raises
`ImportFailure` and the store is left exactly as it was.

The same file imported twice is one import, also when both run at once: the check for an earlier
import is made inside the importing transaction, which holds the store file (another process
waits for it) and, within one process, under `_ONE_IMPORT_AT_A_TIME` (threads share the file).
A dry run takes the same path, in a transaction it rolls back on a store it cannot write
(dry_run.py), and records the refusal the import would stop with (`would_refuse`) instead of
raising it, so it always reports and the command predicts the import's exit code.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from typing import get_args

import duckdb

from data_access.formats.lfvqa_records import Setting
from data_access.formats.table_files import TABLE_FILES
from data_access.importers.catalog import one_catalog_read
from data_access.importers.errors import ImportFailure, fail
from data_access.importers.results.dry_run import dry_run_store
from data_access.importers.results.link import LINKED, choose_kind, drop_linked, link_samples
from data_access.importers.results.provenance import (
    IMPORT_STEP,
    derived_setting_name,
    files_sha256,
    made_elsewhere,
    previous_import,
    record_import,
    setting_in_use,
)
from data_access.importers.results.report import LOOKED_UP, ResultsReport
from data_access.importers.results.samples import OpenedResults
from data_access.importers.results.stage import (
    drop_stage,
    refuse_duplicates,
    refuse_empty,
    stage_samples,
)
from data_access.importers.results.trail import write_staged_trails
from data_access.importers.store_tables import KeyConflict, insert_table_rows
from data_access.store import Store
from data_access.store.interrupts import telling_interrupts
from data_access.tables.runs import RunSpec, finish_run, insert_run

SETTING_SOURCES = get_args(Setting.model_fields["source"].annotation)
_SPECS = {spec.name: spec for spec in TABLE_FILES}
# report kind -> the interchange table file whose INSERT writes it
_TABLE_FILE = {"answers": "answers", "predictions": "mcq_predictions"}
_ONE_IMPORT_AT_A_TIME = threading.Lock()


class _DryRun(Exception):
    """Raised inside the transaction to roll a dry run back."""


def _new_report(opened: OpenedResults, dry_run: bool) -> ResultsReport:
    run = opened.run
    return ResultsReport(
        source=opened.label,
        format=opened.format,
        harness=run.harness,
        harness_version=run.harness_version,
        model=run.model,
        model_args=run.model_args,
        task=run.task,
        model_typed=run.model_typed,
        file_sha256=files_sha256(opened.files),
        dry_run=dry_run,
        link_field=opened.link_field,
        harness_accuracy=run.stated_accuracy,
        harness_accuracy_in=run.stated_accuracy_in,
        notes=list(run.notes),
    )


def _nothing_linked(opened: OpenedResults, report: ResultsReport):
    why = "; ".join(
        f"{reason}: {group.count:,} (first: {', '.join(map(repr, group.first_ids))}"
        + (
            f"; looked up by {opened.link_field}: {', '.join(map(repr, group.first_links))})"
            if reason in LOOKED_UP
            else ")"
        )
        for reason, group in sorted(report.unmatched.items())
    )
    return fail(
        opened.label,
        "(file)",
        opened.link_field,
        f"none of the {report.n_samples:,} samples links to a question or MCQ in the store"
        f" ({why}); samples of another task, or questions not imported yet?",
    )


def _refuse_foreign(cursor: duckdb.DuckDBPyConnection, report: ResultsReport, name: str):
    """An import never adds answers (or predictions) to a setting (method) that something other
    than a results import made: its row says another model and input, and its answers are
    another source's."""
    made_by = made_elsewhere(cursor, report.kind, name)
    if made_by is not None:
        what = "setting" if report.kind == "answers" else "MCQ method"
        raise fail(
            report.source,
            "(option)",
            "--setting",
            f"{what} {name!r} was made by {made_by}, not by a results import: an import never"
            " adds to another source's results; name a new one with --setting",
        )


def _setting_id(cursor: duckdb.DuckDBPyConnection, report: ResultsReport, name: str) -> str:
    """The setting the answers are filed under: `name`, unless another file's answers hold it
    (answers are keyed per setting and question, so a changed file becomes `name@<sha8>`).
    MCQ predictions keep the method name: its latest finished run is the current one.
    A setting or method another source made is refused (`_refuse_foreign`)."""
    _refuse_foreign(cursor, report, name)
    if report.kind == "predictions" or not setting_in_use(cursor, "answers", name):
        if report.kind == "predictions" and setting_in_use(cursor, "predictions", name):
            report.notes.append(
                f"method {name} had predictions already: this run supersedes them for the"
                " questions it answers"
            )
        return name
    versioned = f"{name}@{report.file_sha256[:8]}"
    _refuse_foreign(cursor, report, versioned)
    if setting_in_use(cursor, "answers", versioned):
        raise fail(report.source, "(file)", "-", f"setting {versioned} already holds answers")
    report.notes.append(
        f"setting {name} holds answers of another file: this changed file is setting {versioned}"
    )
    return versioned


def _insert_setting(
    cursor: duckdb.DuckDBPyConnection,
    report: ResultsReport,
    source: str,
    typed: str | None,
    tier: str | None = None,
):
    """The new setting's row, labelled with the name the user typed (what they will look for
    on every page), else "<model> via <harness> (<task>)"; an agent run's with its tier."""
    if cursor.execute(
        "SELECT 1 FROM settings WHERE setting_id = ?", [report.setting_id]
    ).fetchall():
        return
    label = typed or f"{report.model or 'unknown model'} via {report.harness}"
    if report.task and not typed:
        label += f" ({report.task})"
    select = (
        "SELECT ? AS setting_id, ? AS source, ? AS answerer, NULL::VARCHAR AS captioner,"
        " ?::VARCHAR AS tier, ? AS label",
        [report.setting_id, source, report.model, tier, label],
    )
    insert_table_rows(cursor, _SPECS["settings"], None, select, (report.run_id, ""))


def _insert_rows(cursor: duckdb.DuckDBPyConnection, report: ResultsReport) -> int:
    if report.kind == "answers":
        select = (
            "SELECT ? || '/' || link_id AS answer_id, link_id AS question_id,"
            f" ? AS setting_id, text FROM {LINKED} WHERE reason IS NULL",
            [report.setting_id, report.setting_id],
        )
    else:
        select = (
            "SELECT link_id AS mcq_id, ? AS method, option AS predicted_option"
            f" FROM {LINKED} WHERE reason IS NULL",
            [report.setting_id],
        )
    try:
        written = insert_table_rows(
            cursor, _SPECS[_TABLE_FILE[report.kind]], None, select, (report.run_id, "")
        )
    except KeyConflict as conflict:
        raise fail(report.source, "(file)", "-", f"rejected by the store: {conflict}") from None
    if report.kind == "predictions" and report.n_no_letter:
        # Every harness scores a reply it cannot read a letter from as wrong (lmms-eval's ""
        # never equals the answer, VLMEvalKit's 'Z', inspect's choice() gives I), so the
        # accuracy on Distributions counts it wrong too, not unscored.
        cursor.execute(
            "UPDATE mcq_predictions SET correct = FALSE"
            " WHERE run_id = ? AND predicted_option IS NULL",
            [report.run_id],
        )
    return written


def _run_spec(report: ResultsReport, source: str) -> RunSpec:
    return RunSpec(
        step=IMPORT_STEP,
        backend=report.harness,
        model=report.model,
        source=report.source,
        params={
            "format": report.format,
            "harness": report.harness,
            "harness_version": report.harness_version,
            "model_args": report.model_args,
            # provenance: the model came from the user, not the harness's file
            "model_typed": report.model_typed or None,
            "task": report.task,
            "file_sha256": report.file_sha256,
            "setting_id": report.setting_id,
            "kind": report.kind,
            "setting_source": source,
            "letter_rules": report.letter_rules or None,
            "harness_accuracy": report.harness_accuracy,
        },
    )


def write_results(
    store: Store,
    opened: OpenedResults,
    *,
    setting: str | None,
    source: str,
    dry_run: bool,
) -> ResultsReport:
    """Stage, link and write one opened results file (see the module docstring).

    Raises:
        ImportFailure: the file is bad or nothing in it links to the store; nothing written.
    """
    if source not in SETTING_SOURCES:
        raise fail(opened.label, "(option)", "source", f"one of {', '.join(SETTING_SOURCES)}")
    report = _new_report(opened, dry_run)
    # what the file says the model saw (an exported agent task) wins over the caller's default
    source = opened.run.setting_source or source
    name = setting or derived_setting_name(opened.run)
    place = dry_run_store(store) if dry_run else nullcontext((store, None))
    with _ONE_IMPORT_AT_A_TIME, place as (target, note):
        if note:
            report.notes.append(note)
        told = telling_interrupts(
            target, IMPORT_STEP, report.source, f"the import of {report.source}"
        )
        try:
            with told, target.transaction() as cursor, one_catalog_read():
                _import(cursor, opened, report, name, source, typed=setting, tier=opened.run.tier)
        except _DryRun:
            pass
    return report


def _import(
    cursor: duckdb.DuckDBPyConnection,
    opened: OpenedResults,
    report: ResultsReport,
    name: str,
    source: str,
    typed: str | None = None,
    tier: str | None = None,
) -> None:
    """The import inside its transaction: a no-op when done before, else stage, link, check
    and (unless a dry run) write. A dry run ends with `_DryRun`, which rolls it back."""
    previous = previous_import(cursor, report.file_sha256, name)
    if previous is not None:
        report.run_id, report.setting_id = previous
        report.already_imported = True
        return
    _stage_and_link(cursor, opened, report)
    if report.n_matched == 0:
        _refuse(report, _nothing_linked(opened, report))
    if report.kind is not None:
        try:
            report.setting_id = _setting_id(cursor, report, name)
        except ImportFailure as refusal:
            _refuse(report, refusal)
    if report.dry_run:
        if report.kind == "answers":
            write_staged_trails(cursor, report, write=False)
        raise _DryRun
    _write(cursor, report, name, source, typed=typed, tier=tier)


def _refuse(report: ResultsReport, refusal: ImportFailure) -> None:
    """Raise the import's refusal; a dry run records it (`would_refuse`, the first one found)
    and goes on, so it always reports what it found and the command exits as the import would."""
    if not report.dry_run:
        raise refusal
    report.would_refuse = report.would_refuse or str(refusal.first)


def _stage_and_link(
    cursor: duckdb.DuckDBPyConnection, opened: OpenedResults, report: ResultsReport
) -> None:
    report.n_samples = stage_samples(cursor, opened.samples)
    refuse_empty(opened, report.n_samples)
    try:
        refuse_duplicates(cursor, opened)
    except ImportFailure as refusal:
        _refuse(report, refusal)
    report.kind = choose_kind(cursor)
    link_samples(cursor, report.kind, report)


def _write(
    cursor: duckdb.DuckDBPyConnection,
    report: ResultsReport,
    name: str,
    source: str,
    typed: str | None = None,
    tier: str | None = None,
):
    report.run_id = insert_run(cursor, _run_spec(report, source))
    if report.kind == "answers":
        _insert_setting(cursor, report, source, typed, tier)
    written = _insert_rows(cursor, report)
    if report.kind == "answers":
        write_staged_trails(cursor, report)
    record_import(cursor, report, name)
    drop_linked(cursor)
    drop_stage(cursor)
    finish_run(cursor, report.run_id, n_items=written, n_failed=report.n_unmatched)
