"""StoryVideoQA aligned-script files (StoryMindv2 §3.1): reading them and aligning their sheets.

A file holds sheets `subtitle`, `script`, `results` (the dataset's automatic DTW alignment) and
`results_human` (human-corrected); TV files carry an episode suffix (`subtitle_S01E01`,
`result_S01E01`). Each results row names the script row its cue belongs to (`index_result`), with
that row's `scene_index` and speaker (`characters`). The released `.xlsx` and the JSON conversion
(`{sheet: [rows]}`) are both read. Scoring against the human sheet is `align_eval.py`.

Rows of the results sheets are matched to subtitle cues by (start time, text with whitespace
collapsed), because the results sheets add, drop or reorder a few rows against `subtitle`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pipelines.preprocess.align import align_cues_to_lines
from pipelines.preprocess.dtw import dtw_cue_to_line

# "dp": the ingest aligner (skip-cost DP, speaker turns; LF-VideoQA App. C), align-eval's default;
# "dtw": the release's method class (StoryMindv2 §3.1, classic DTW, first line per cue), our cost.
ALIGN_METHODS = ("dp", "dtw")


class AlignedScriptError(ValueError):
    """An aligned-script file is unreadable or lacks a sheet or column."""


def sheet(sheets: dict[str, list[dict]], prefix: str, source: str) -> list[dict]:
    """The rows of the sheet named `prefix` (with or without an episode suffix)."""
    for name, rows in sheets.items():
        if name.split("_")[0] == prefix:
            return rows
    raise AlignedScriptError(f"{source}: no sheet named {prefix!r} (found {sorted(sheets)})")


def human_sheet(sheets: dict[str, list[dict]], source: str) -> list[dict]:
    for name, rows in sheets.items():
        if name.startswith("results_human"):
            return rows
    raise AlignedScriptError(f"{source}: no sheet named 'results_human'")


def automatic_sheet(sheets: dict[str, list[dict]], source: str) -> list[dict]:
    for name, rows in sheets.items():
        if name.startswith("result") and "human" not in name:
            return rows
    raise AlignedScriptError(f"{source}: no automatic 'results' sheet")


def load_sheets(path: Path) -> dict[str, list[dict]]:
    """{sheet name: rows as dicts of strings} from a .json conversion or a released .xlsx."""
    if not path.is_file():
        raise AlignedScriptError(f"{path}: no such file")
    if path.suffix.lower() == ".xlsx":
        return _load_xlsx(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AlignedScriptError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise AlignedScriptError(f"{path}: expected {{sheet: [rows]}}")
    return data


def _load_xlsx(path: Path) -> dict[str, list[dict]]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise AlignedScriptError(f"{path}: not a readable .xlsx ({exc})") from exc
    sheets = {}
    for worksheet in book.worksheets:
        rows = list(worksheet.iter_rows(values_only=True))
        if not rows:
            continue
        header = ["Unnamed: 0" if h is None and i == 0 else str(h) for i, h in enumerate(rows[0])]
        sheets[worksheet.title] = [
            {h: "" if v is None else str(v) for h, v in zip(header, row)} for row in rows[1:]
        ]
    return sheets


def row_key(row: dict) -> tuple[str, str]:
    """(start time, text with whitespace collapsed): ties a results row to its subtitle cue."""
    return (
        str(row.get("start_time", "")).strip(),
        re.sub(r"\s+", " ", str(row.get("dialog", ""))).strip(),
    )


def row_id(row: dict) -> str:
    """A sheet row's own id (the index column pandas wrote as 'Unnamed: 0')."""
    return str(row.get("Unnamed: 0", row.get("index", row.get("index_sub", "")))).strip()


def align_sheets(sheets: dict[str, list[dict]], source: str, method: str = "dp") -> list[str]:
    """Our script-row id for every row of the subtitle sheet, by `method` (one of ALIGN_METHODS)."""
    if method not in ALIGN_METHODS:
        raise AlignedScriptError(
            f"unknown alignment method {method!r} (choose from {', '.join(ALIGN_METHODS)})"
        )
    subtitles = sheet(sheets, "subtitle", source)
    script = sheet(sheets, "script", source)
    dialog = [r for r in script if str(r.get("record_type", "")).strip() == "dialog"]
    if not dialog:
        raise AlignedScriptError(f"{source}: sheet 'script' has no row with record_type 'dialog'")
    cues = [str(r.get("dialog", "")) for r in subtitles]
    lines = [str(r.get("content", "")) for r in dialog]
    if method == "dtw":
        cue_to_line = dtw_cue_to_line(cues, lines)
    else:
        # The ingest aligner as ingest runs it: with cue times, so that cues with no script
        # words take their time neighbours' line (and so scene).
        starts, ends = _cue_times(subtitles, source)
        cue_to_line = align_cues_to_lines(
            cues, lines, cue_times=list(zip(starts, ends))
        ).cue_to_line
    return [row_id(dialog[j]) if j is not None else "" for j in cue_to_line]


def _seconds(stamp: object) -> float:
    hours, minutes, seconds = str(stamp).strip().replace(",", ".").split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _cue_times(subtitles: list[dict], source: str) -> tuple[list[float], list[float]]:
    """Start and end seconds of every subtitle row ('00:02:05,510')."""
    starts, ends = [], []
    for index, row in enumerate(subtitles):
        try:
            starts.append(_seconds(row.get("start_time", "")))
            ends.append(_seconds(row.get("end_time", "")))
        except ValueError:
            raise AlignedScriptError(
                f"{source}: sheet 'subtitle' row {index}: field 'start_time'/'end_time' is not "
                f"HH:MM:SS,mmm ({row.get('start_time')!r}, {row.get('end_time')!r})"
            ) from None
    return starts, ends
