"""`storyscope export` and the pages' download buttons: one slice of the store to a file.

The rows come from `data_access.queries.export_rows` (tables and views with their run ids);
the `metrics` export adds each answer's Eq. 1 scores (LF-VideoQA §3.3, `pipelines.metrics.eq1`)
to the per-answer verdict counts, and the `agent-trail` export each agent loop's trail measures
(`pipelines.metrics.trail`), so a notebook gets the numbers the app shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from data_access.queries import export_rows
from data_access.store import Store
from pipelines.metrics.eq1 import per_answer_scores
from pipelines.metrics.trail_table import settings_frame, with_measures
from pipelines.output_guard import replace_atomically, safe_output_folder, safe_output_path


@dataclass
class ExportReport:
    """What an export wrote."""

    name: str
    path: Path
    rows: int
    columns: list[str]
    written: bool = True  # False: an interchange table with no rows, whose file is left out


def slice_frame(
    store: Store,
    name: str,
    where: Mapping[str, Sequence[str]] | None = None,
    interchange: bool = False,
) -> pd.DataFrame:
    """The rows of one export (with Eq. 1 scores for `metrics`, trail measures for
    `agent-trail`)."""
    frame = export_rows.read_export(store, name, where, interchange)
    if name in _SCORED and not frame.empty:
        frame = _SCORED[name](frame)
    return frame


# exports whose rows get computed columns added (the same functions the app and CLI use)
_SCORED = {
    "metrics": per_answer_scores,
    "agent-trail": with_measures,
    "agent-trail-settings": settings_frame,
}


def export_slice(
    store: Store,
    name: str,
    fmt: str,
    out: Path,
    where: Mapping[str, Sequence[str]] | None = None,
    interchange: bool = False,
    force: bool = False,
) -> ExportReport:
    """Write one export to `out` (a file; in interchange mode a folder that gets
    `<table>.<jsonl|parquet>` and a `manifest.json`).

    The output path is checked before anything is read (`pipelines.output_guard`): never the
    store or its WAL, and an existing file only with `force`, replaced whole.

    Raises:
        ExportError: unknown export, format or column.
        OutputRefused: `out` may not be written.
    """
    if fmt not in export_rows.FORMATS:
        raise export_rows.ExportError(
            f"--format {fmt!r}: choose one of {', '.join(export_rows.FORMATS)}"
        )
    target = _checked_target(store, name, fmt, Path(out), interchange, force)
    if name in _SCORED:
        frame = slice_frame(store, name, where, interchange)
    else:  # Arrow keeps the store's column types in the file
        frame = export_rows.read_export_arrow(store, name, where, interchange)
    columns = frame.column_names if hasattr(frame, "column_names") else list(frame.columns)
    if interchange:
        export_rows.write_manifest(target.parent, "storyscope-export", "StoryScope export")
        if frame.shape[0] == 0:
            # the format has no empty table files (docs/FORMAT.md): the importer refuses one, so
            # the file is left out, and one an earlier export left there (--force) goes too
            target.unlink(missing_ok=True)
            return ExportReport(name, target, 0, list(columns), written=False)
    replace_atomically(target, lambda path: export_rows.write_frame(frame, fmt, path))
    return ExportReport(name, target, frame.shape[0], list(columns))


def _checked_target(
    store: Store, name: str, fmt: str, out: Path, interchange: bool, force: bool
) -> Path:
    """The file an export writes, once the output guard allows it."""
    if not interchange:
        return safe_output_path(out, store=store.path, force=force)
    if fmt == "csv":
        raise export_rows.ExportError("--interchange needs --format jsonl or parquet")
    file_name = f"{export_rows.interchange_table(name)}.{fmt}"
    folder = safe_output_folder(out, [file_name], store=store.path, force=force)
    manifest = folder / "manifest.json"
    if not manifest.exists():  # kept when present; a new one (or a dangling link) is checked
        safe_output_path(manifest, store=store.path)
    return folder / file_name
