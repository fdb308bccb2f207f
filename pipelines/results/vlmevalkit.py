"""VLMEvalKit prediction files: `<model>_<dataset>.xlsx` / `.tsv` and the scored `*_result.xlsx`.

Followed writer code (open-compass/VLMEvalKit): `vlmeval/inference.py` / `inference_video.py`
write the dataset's rows with a `prediction` column added, to
`outputs/<model>/[T<date>_G<commit>/]<model>_<dataset>.xlsx` (or `.tsv`); an MCQ row keeps
`index`, `question`, the options `A`, `B`, ... and `answer`. Evaluation writes the scored copy
`<model>_<dataset>_<judge>_result.xlsx` with the same rows plus `hit` / `log`. A failed API call
leaves `Failed to obtain answer via API.` as the prediction (`vlmeval/smp`, FAIL_MSG).

Linking: `--map question_id=COLUMN`, else a `question_id` or `mcq_id` column (extra dataset
columns survive into the prediction file), else `index`. MCQ letter: VLMEvalKit's `can_infer`
on the prediction and the row's options (letters.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_access.importers.errors import fail
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results import bounded
from pipelines.results.letters import LETTERS, vlmevalkit_letter
from pipelines.results.options import ReadOptions

FAIL_MSG = "Failed to obtain answer via API"
SUFFIXES = (".xlsx", ".tsv")
LINK_COLUMNS = ("question_id", "mcq_id", "index")
_RESULT_SUFFIX = re.compile(r"_[^_]+_result$")


def _cell(value: Any) -> str | None:
    """A cell as text: integral floats as integers (pandas writes ids as 3.0), NaN as None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value)
    return None if text.strip() == "" or text == "nan" else text


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, {column: value}) streamed from an .xlsx (read-only) or .tsv file."""
    if path.suffix == ".tsv":
        yield from bounded.csv_rows(path, delimiter="\t")
        return
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # zipfile / XML errors of a damaged workbook
        raise fail(path.name, "(file)", "-", f"not a readable .xlsx workbook: {exc}") from None
    try:
        yield from bounded.sheet_rows(book.worksheets[0], path.name)
    finally:
        book.close()


def _prediction_file(path: Path) -> Path:
    if path.is_file():
        return path
    found = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES)
    scored = [p for p in found if p.stem.endswith("_result")]
    chosen = scored or found
    if len(chosen) != 1:
        raise fail(str(path), "(folder)", "-", f"{len(chosen)} VLMEvalKit files: import one file")
    return chosen[0]


def _model_and_dataset(path: Path) -> tuple[str | None, str]:
    """VLMEvalKit names a file `<model>_<dataset>` inside a folder named after the model."""
    stem = _RESULT_SUFFIX.sub("", path.stem)
    for folder in (path.parent, path.parent.parent):
        if folder.name and stem.startswith(folder.name + "_"):
            return folder.name, stem[len(folder.name) + 1 :]
    return None, stem


def _link_column(header: dict, options: ReadOptions) -> str | None:
    mapped = options.mapped("question_id")
    if mapped:
        return mapped if mapped in header else None
    return next((c for c in LINK_COLUMNS if c in header), None)


def _samples(path: Path, options: ReadOptions, link_column: str) -> Iterator[ResultSample]:
    answer_column = options.mapped("answer") or "prediction"
    for number, row in _rows(path):
        if answer_column not in row:
            raise fail(path.name, f"row {number}", answer_column, "missing")
        text = _cell(row.get(answer_column))
        choices = {k: v for k in LETTERS if (v := _cell(row.get(k))) is not None}
        error = text if text and text.startswith(FAIL_MSG) else None
        letter = vlmevalkit_letter(text, choices) if text and not error else None
        sample_id = _cell(row.get("index")) or f"row {number}"
        yield ResultSample(
            f"row {number}", sample_id, _cell(row.get(link_column)), text, letter, error
        )


def open_vlmevalkit(path: Path, options: ReadOptions) -> OpenedResults:
    """A VLMEvalKit prediction (or scored result) file, or the folder holding one."""
    path = _prediction_file(path)
    if path.suffix not in SUFFIXES:
        raise fail(path.name, "(file)", "-", "not a VLMEvalKit file: expected .xlsx or .tsv")
    first = next(_rows(path), None)
    if first is None:
        raise fail(path.name, "(file)", "-", "no rows: not a VLMEvalKit prediction file")
    header = first[1]
    answer_column = options.mapped("answer") or "prediction"
    for column in ("index", answer_column):
        if column not in header:
            raise fail(path.name, "row 1", column, "missing: not a VLMEvalKit prediction file")
    link_column = _link_column(header, options)
    if link_column is None:
        raise fail(path.name, "row 1", options.mapped("question_id") or "index", "missing")
    model, dataset = _model_and_dataset(path)
    return OpenedResults(
        format="vlmevalkit",
        files=[path],
        label=path.name,
        run=HarnessRun("VLMEvalKit", model=model, task=dataset),
        samples=_samples(path, options, link_column),
        id_field="index",
        link_field=link_column,
    )
