"""`storyscope export` and the pages' download buttons: one slice of the store to a file.

The rows come from `data_access.export` (tables and views with their run ids); the `metrics`
export adds each answer's Eq. 1 scores (LF-VideoQA §3.3, `pipelines.metrics.eq1`) to the
per-answer verdict counts, so a notebook gets the numbers the app shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from data_access import export as store_export
from data_access.store import Store
from pipelines.metrics.eq1 import per_answer_scores


@dataclass
class ExportReport:
    """What an export wrote."""

    name: str
    path: Path
    rows: int
    columns: list[str]


def slice_frame(
    store: Store,
    name: str,
    where: Mapping[str, Sequence[str]] | None = None,
    interchange: bool = False,
) -> pd.DataFrame:
    """The rows of one export (with Eq. 1 scores for `metrics`)."""
    frame = store_export.read_export(store, name, where, interchange)
    if name == "metrics" and not frame.empty:
        frame = per_answer_scores(frame)
    return frame


def export_slice(
    store: Store,
    name: str,
    fmt: str,
    out: Path,
    where: Mapping[str, Sequence[str]] | None = None,
    interchange: bool = False,
) -> ExportReport:
    """Write one export to `out` (a file; in interchange mode a folder that gets
    `<table>.<jsonl|parquet>` and a `manifest.json`)."""
    if fmt not in store_export.FORMATS:
        raise store_export.ExportError(
            f"--format {fmt!r}: choose one of {', '.join(store_export.FORMATS)}"
        )
    if name == "metrics":
        frame = slice_frame(store, name, where, interchange)
    else:  # Arrow keeps the store's column types in the file
        frame = store_export.read_export_arrow(store, name, where, interchange)
    if interchange:
        if fmt == "csv":
            raise store_export.ExportError("--interchange needs --format jsonl or parquet")
        table_file = store_export.EXPORTS[name].interchange
        out = Path(out) / f"{table_file}.{fmt}"
        store_export.write_manifest(Path(out).parent, "storyscope-export", "StoryScope export")
    store_export.write_frame(frame, fmt, Path(out))
    columns = frame.column_names if hasattr(frame, "column_names") else list(frame.columns)
    return ExportReport(name, Path(out), frame.shape[0], list(columns))
