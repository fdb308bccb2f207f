"""StoryVideoQA aligned-script files (StoryMindv2 §3.1) and `align-eval` against their human gold.

A file holds sheets `subtitle`, `script`, `results` (the dataset's automatic DTW alignment) and
`results_human` (human-corrected); TV files carry an episode suffix (`subtitle_S01E01`,
`result_S01E01`). Each results row names the script row its cue belongs to (`index_result`).
The released `.xlsx` and the JSON conversion (`{sheet: [rows]}`) are both read.

Rows of the results sheets are matched to subtitle cues by (start time, text with whitespace
collapsed), because the results sheets add, drop or reorder a few rows against `subtitle`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pipelines.preprocess.align import align_cues_to_lines, token_share
from pipelines.preprocess.dtw import dtw_cue_to_line

# "dtw": the release's method class (StoryMindv2 §3.1, classic DTW, first line per cue) with our
# IDF cost; "dp": the ingest aligner (skip-cost DP, speaker turns; LF-VideoQA App. C).
ALIGN_METHODS = ("dtw", "dp")


class AlignedScriptError(ValueError):
    """An aligned-script file is unreadable or lacks a sheet or column."""


def _sheet(sheets: dict[str, list[dict]], prefix: str, source: str) -> list[dict]:
    for name, rows in sheets.items():
        if name.split("_")[0] == prefix:
            return rows
    raise AlignedScriptError(f"{source}: no sheet named {prefix!r} (found {sorted(sheets)})")


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
    for sheet in book.worksheets:
        rows = list(sheet.iter_rows(values_only=True))
        if not rows:
            continue
        header = ["Unnamed: 0" if h is None and i == 0 else str(h) for i, h in enumerate(rows[0])]
        sheets[sheet.title] = [
            {h: "" if v is None else str(v) for h, v in zip(header, row)} for row in rows[1:]
        ]
    return sheets


def _key(row: dict) -> tuple[str, str]:
    return (str(row.get("start_time", "")).strip(), re.sub(r"\s+", " ", str(row.get("dialog", ""))).strip())


def _row_id(row: dict) -> str:
    return str(row.get("Unnamed: 0", row.get("index", row.get("index_sub", "")))).strip()


@dataclass
class EvalResult:
    """Accuracies on the cues that `results_human` covers; `corrected` counts the cues where the
    humans changed the automatic answer, and `ours_on_corrected` how often we agree with them there
    (the automatic alignment scores 0 on those by definition)."""

    file: str
    cues: int
    ours: float
    automatic: float
    corrected: int = 0
    ours_on_corrected: float | None = None
    ours_closer: int = 0      # disagreements where our row clearly holds the cue's words
    gold_closer: int = 0      # ... where the results_human row does


def _first_by_key(rows: list[dict]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for row in rows:
        found.setdefault(_key(row), str(row.get("index_result", "")).strip())
    return found


def align_sheets(sheets: dict[str, list[dict]], source: str, method: str = "dtw") -> list[str]:
    """Our script-row id for every row of the subtitle sheet, by `method` (one of ALIGN_METHODS)."""
    if method not in ALIGN_METHODS:
        raise AlignedScriptError(f"unknown alignment method {method!r} (choose from {', '.join(ALIGN_METHODS)})")
    subtitles = _sheet(sheets, "subtitle", source)
    script = _sheet(sheets, "script", source)
    dialog = [r for r in script if str(r.get("record_type", "")).strip() == "dialog"]
    if not dialog:
        raise AlignedScriptError(f"{source}: sheet 'script' has no row with record_type 'dialog'")
    cues = [str(r.get("dialog", "")) for r in subtitles]
    lines = [str(r.get("content", "")) for r in dialog]
    cue_to_line = dtw_cue_to_line(cues, lines) if method == "dtw" else align_cues_to_lines(cues, lines).cue_to_line
    return [_row_id(dialog[j]) if j is not None else "" for j in cue_to_line]


def evaluate_file(path: Path, method: str = "dtw") -> EvalResult:
    """Our (by `method`) and the automatic alignment's accuracy against `results_human` on one file."""
    sheets = load_sheets(path)
    source = str(path)
    subtitles = _sheet(sheets, "subtitle", source)
    human = _first_by_key(_human_sheet(sheets, source))
    automatic = _first_by_key(_automatic_sheet(sheets, source))
    ours = align_sheets(sheets, source, method)
    scored = [(i, _key(r)) for i, r in enumerate(subtitles) if _key(r) in human]
    if not scored:
        raise AlignedScriptError(f"{source}: no subtitle row matches a row of results_human")
    ours_right = sum(ours[i] == human[k] for i, k in scored)
    auto_right = sum(automatic.get(k) == human[k] for _, k in scored)
    corrected = [(i, k) for i, k in scored if automatic.get(k) != human[k]]
    on_corrected = sum(ours[i] == human[k] for i, k in corrected) / len(corrected) if corrected else None
    ours_closer, gold_closer = _textual_support(subtitles, _sheet(sheets, "script", source), ours, human, scored)
    return EvalResult(path.name, len(scored), ours_right / len(scored), auto_right / len(scored),
                      len(corrected), on_corrected, ours_closer, gold_closer)


def _textual_support(subtitles, script, ours, human, scored) -> tuple[int, int]:
    """Where we and the gold disagree: how often each row clearly holds the cue's words (it has at
    least half of them and a quarter more of them than the other row)."""
    content = {_row_id(r): str(r.get("content", "")) for r in script}
    ours_closer = gold_closer = 0
    for i, key in scored:
        if ours[i] == human[key]:
            continue
        cue = str(subtitles[i].get("dialog", ""))
        ours_share = token_share(cue, content.get(ours[i], ""))
        gold_share = token_share(cue, content.get(human[key], ""))
        ours_closer += ours_share >= 0.5 and ours_share >= gold_share + 0.25
        gold_closer += gold_share >= 0.5 and gold_share >= ours_share + 0.25
    return ours_closer, gold_closer


def _human_sheet(sheets: dict[str, list[dict]], source: str) -> list[dict]:
    for name, rows in sheets.items():
        if name.startswith("results_human"):
            return rows
    raise AlignedScriptError(f"{source}: no sheet named 'results_human'")


def file_group(name: str) -> str:
    """films | GOT | sitcoms: sitcom human and automatic sheets are identical, so they are
    reported apart (the human gold is informative for films and GOT only)."""
    upper = name.upper()
    if upper.startswith("GOT"):
        return "GOT"
    if upper.startswith(("FRIENDS", "BIGBANG")):
        return "sitcoms"
    return "films"


def summarise(results: list[EvalResult]) -> dict:
    """The `align-eval --json` object, plus per-group means under `groups` for the text report."""
    rows = [{"file": r.file, "cues": r.cues, "ours": round(r.ours, 4), "automatic": round(r.automatic, 4)}
            for r in results]
    mean = (lambda values: round(sum(values) / len(values), 4) if values else None)
    summary = {"files": rows, "ours_mean": mean([r.ours for r in results]),
               "automatic_mean": mean([r.automatic for r in results])}
    groups: dict[str, list[EvalResult]] = {}
    for result in results:
        groups.setdefault(file_group(result.file), []).append(result)
    summary["groups"] = {g: {"files": len(rs), "ours_mean": mean([r.ours for r in rs]),
                             "automatic_mean": mean([r.automatic for r in rs])} for g, rs in groups.items()}
    return summary


def _automatic_sheet(sheets: dict[str, list[dict]], source: str) -> list[dict]:
    for name, rows in sheets.items():
        if name.startswith("result") and "human" not in name:
            return rows
    raise AlignedScriptError(f"{source}: no automatic 'results' sheet")
