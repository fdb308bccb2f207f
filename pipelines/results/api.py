"""`import_results`: pick the reader for a file's format, open it, hand it to the write path."""

from __future__ import annotations

from pathlib import Path

from data_access.importers.errors import fail
from data_access.importers.results.report import ResultsReport
from data_access.importers.results.samples import OpenedResults
from data_access.importers.results.write import write_results
from data_access.store import Store
from pipelines.results import (  # noqa: F401 -- imported for their reader registrations
    bounded,
    harness_samples,
    inspect_log,
    openai_batch,
    table,
    vlmevalkit,
)
from pipelines.results.detect import detect_format
from pipelines.results.options import ReadOptions, check_map
from pipelines.results.readers import FORMATS, READERS, Reader

_MISSING = [name for name in FORMATS if name not in READERS]
if _MISSING:
    raise RuntimeError(f"formats without a reader: {', '.join(_MISSING)}")

# settings.source of the imported setting when the caller does not say: the harnesses here
# evaluate video LLMs on the film itself (lmms-eval, VLMEvalKit are video-LMM harnesses).
DEFAULT_SOURCE = "video"


def open_results(
    path: str | Path,
    format: str = "auto",
    column_map: dict[str, str] | None = None,
    batch_input: str | Path | None = None,
) -> OpenedResults:
    """Open a results file with its harness's reader (samples are read lazily).

    Raises:
        ImportFailure: the file is not what `format` says (file, record and field named).
    """
    path = Path(path)
    if not path.exists():
        raise fail(str(path), "(file)", "-", "no such file or folder")
    bounded.check_input(path, Path(batch_input) if batch_input else None)
    fmt = detect_format(path) if format == "auto" else format
    reader: Reader | None = READERS.get(fmt)
    if reader is None:
        raise fail(str(path), "(file)", "-", f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    check_map(str(path), dict(column_map or {}), fmt)
    options = ReadOptions(dict(column_map or {}), Path(batch_input) if batch_input else None)
    return reader(path, options)


def import_results(
    store: Store,
    path: str | Path,
    *,
    format: str = "auto",
    setting: str | None = None,
    column_map: dict[str, str] | None = None,
    dry_run: bool = False,
    source: str = DEFAULT_SOURCE,
    batch_input: str | Path | None = None,
    model: str | None = None,
) -> ResultsReport:
    """Import one harness's per-sample outputs as answers or MCQ predictions of one setting.

    Args:
        store: the store; its questions / MCQs are what samples link to.
        path: a results file, or a folder holding one harness run's files.
        format: `auto` (told from names and content) or one of `FORMATS`.
        setting: the setting (answers) or method (predictions) name; derived from harness,
            model and task when None.
        column_map: field -> column of the file, or a setting (`letters`, `output_type`); each
            format takes the fields its reader uses (formats.py), others are refused.
        dry_run: read, link and report, write nothing.
        source: `settings.source` of a new setting (what the model saw).
        batch_input: the OpenAI Batch input JSONL the output file answers (optional).
        model: the model, for a file that does not name it (a samples file without its
            harness's results summary, a table); recorded as named by the user.

    Returns:
        The report: counts, setting, run, and the samples left out with their reasons.

    Raises:
        ImportFailure: the input is bad (file, record and field named); nothing was written.
    """
    opened = open_results(path, format, column_map, batch_input)
    name_model(opened, model)
    return write_results(store, opened, setting=setting, source=source, dry_run=dry_run)


def name_model(opened: OpenedResults, model: str | None) -> None:
    """The user's name for the model of a file that names none. A file that names its model
    keeps it: a typed name that differs is refused, never written over the harness's own."""
    model = (model or "").strip() or None
    if model is None:
        return
    stated = opened.run.model
    if stated is not None and stated != model:
        raise fail(
            opened.label,
            "(option)",
            "--model",
            f"the file names its model {stated!r}; a model is named only for a file that"
            " names none",
        )
    if stated is None:
        opened.run.model = model
        opened.run.model_typed = True
