"""VLMEvalKit prediction files: `<model>_<dataset>.xlsx` / `.tsv` and the scored `*_result.xlsx`.

Followed writer code (open-compass/VLMEvalKit):
- `vlmeval/inference.py` / `inference_video.py` write the dataset's rows with a `prediction`
  column added (an MCQ row keeps `index`, `question`, the options `A`, `B`, ... and `answer`);
  a failed API call leaves `Failed to obtain answer via API.` (`vlmeval/smp`, FAIL_MSG).
- Where (`run.py`): `outputs/<model>/<model>_<dataset>.xlsx` in early versions;
  `outputs/<model>/T<YYYYMMDD>_G<commit8>/` from 7739374c (2024-11-21), the run's date and the
  code's commit in the name; `outputs/<model>/T<YYYYMMDD-HHMMSS>/` with a `status.json` holding
  `commit` from a9343a1e (2026-04-09) (`build_eval_id`, `upsert_run_status`).
- Scoring (`vlmeval/dataset/image_mcq.py` `evaluate_heuristic`, `dataset/utils/
  multiple_choice.py` `mcq_vanilla_eval` / `eval_vanilla` at e8e78f05): the scored copy
  `<model>_<dataset>_<judge>_result.xlsx` holds the same rows plus `hit` (1 when the letter read
  — by `can_infer`, else by asking the judge model — is the answer) and `log` (`Match Log: <the
  text the letter was read from>. `); `<model>_<dataset>_acc.csv` holds the accuracy
  (`report_acc`: `Overall`, the mean of `hit`).

Linking: `--map question_id=COLUMN`, else a `question_id` or `mcq_id` column (extra dataset
columns survive into the prediction file), else `index`. MCQ letter: a scored file's own outcome
(`hit`, `log`); a prediction file's `can_infer` at the rule of the run's date (letters.py).
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_access.importers.errors import fail
from data_access.importers.results import formats
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results import bounded
from pipelines.results.letters import (
    LETTERS,
    VLMEVAL_CAN_INFER,
    VLMEVAL_JUDGED,
    vlmevalkit_letter,
    vlmevalkit_rule,
)
from pipelines.results.options import ReadOptions, check_mapped_places
from pipelines.results.readers import register_reader

FAIL_MSG = "Failed to obtain answer via API"
SUFFIXES = (".xlsx", ".tsv")
LINK_COLUMNS = ("question_id", "mcq_id", "index")
# `_<judge>_result`: the judge's name, `exact_matching` when no judge model was used
_RESULT_SUFFIX = re.compile(r"_(?:exact_matching|[^_]+)_result$")
_EVAL_ID = re.compile(
    r"^T(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?:_G(?P<commit>[0-9a-fA-F]+)|-\d{6})$"
)
_MATCH_LOG = re.compile(r"^\s*Match Log:\s*(?P<text>.*?)\.?\s*$", re.DOTALL)
STATUS_FILE = "status.json"


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


def run_folder(path: Path) -> tuple[str | None, str | None]:
    """(version, run date YYYY-MM-DD) from the run folder VLMEvalKit wrote the file in:
    `T20250428_G1ff966c3` names the commit, `T20260417-093000` has it in its status.json."""
    match = _EVAL_ID.match(path.parent.name)
    if match is None:
        return None, None
    date = f"{match['y']}-{match['m']}-{match['d']}"
    commit = match["commit"]
    status = path.parent / STATUS_FILE
    if commit is None and status.is_file():
        try:
            commit = json.loads(status.read_text(encoding="utf-8")).get("commit")
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            commit = None
    return (f"git {commit}" if isinstance(commit, str) and commit else None), date


def _stated_accuracy(path: Path, run: HarnessRun) -> None:
    """`Overall` of the `<model>_<dataset>_acc.csv` beside the file (one split), as 0-1."""
    acc = path.with_name(f"{_RESULT_SUFFIX.sub('', path.stem)}_acc.csv")
    if not acc.is_file():
        return
    with acc.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != 1 or "Overall" not in rows[0]:
        return
    try:
        value = float(rows[0]["Overall"])
    except ValueError:
        return
    run.stated_accuracy = value / 100 if value > 1 else value
    run.stated_accuracy_in = f"{acc.name} Overall"


def _link_column(header: dict, options: ReadOptions) -> str | None:
    mapped = options.mapped("question_id")
    if mapped:
        return mapped if mapped in header else None
    return next((c for c in LINK_COLUMNS if c in header), None)


def _judged_letter(row: dict, choices: dict[str, str], rule: str) -> str | None:
    """The letter VLMEvalKit scored: the answer when `hit` is 1; else the letter its match log
    gives when that is not the answer (its random pick after a failed judge is not logged)."""
    answer = _cell(row.get("answer"))
    if str(_cell(row.get("hit"))) == "1":
        return answer if answer in LETTERS else None
    match = _MATCH_LOG.match(_cell(row.get("log")) or "")
    letter = vlmevalkit_letter(match["text"], choices, rule) if match else None
    return letter if letter != answer else None


def _samples(path: Path, options: ReadOptions, link_column: str, rule: str, scored: bool):
    answer_column = options.mapped("answer") or "prediction"
    can_infer = f"{VLMEVAL_CAN_INFER} (rule of {rule})"
    for number, row in _rows(path):
        if answer_column not in row:
            raise fail(path.name, f"row {number}", answer_column, "missing")
        text = _cell(row.get(answer_column))
        choices = {k: v for k in LETTERS if (v := _cell(row.get(k))) is not None}
        error = text if text and text.startswith(FAIL_MSG) else None
        if scored:
            letter, how = _judged_letter(row, choices, rule), VLMEVAL_JUDGED
        elif text and not error:
            letter, how = vlmevalkit_letter(text, choices, rule), can_infer
        else:
            letter, how = None, None
        sample_id = _cell(row.get("index")) or f"row {number}"
        link = _cell(row.get(link_column))
        yield ResultSample(f"row {number}", sample_id, link, text, letter, error, None, how)


@register_reader(formats.VLMEVALKIT)
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
    check_mapped_places(path.name, "row 1", header, options)
    link_column = _link_column(header, options)
    if link_column is None:
        raise fail(path.name, "row 1", options.mapped("question_id") or "index", "missing")
    model, dataset = _model_and_dataset(path)
    version, run_date = run_folder(path)
    run = HarnessRun("VLMEvalKit", harness_version=version, model=model, task=dataset)
    scored = "hit" in header and "log" in header
    if scored:
        _stated_accuracy(path, run)
    else:
        copies = sorted(path.parent.glob(f"{path.stem}_*_result.xlsx"))
        if copies:
            run.notes.append(
                f"VLMEvalKit scored this run in {copies[0].name}: import that file (or the"
                " folder) for its own verdicts; this one is read by can_infer alone"
            )
    return OpenedResults(
        format="vlmevalkit",
        files=[path],
        label=path.name,
        run=run,
        samples=_samples(path, options, link_column, vlmevalkit_rule(run_date), scored),
        id_field="index",
        link_field=link_column,
    )
