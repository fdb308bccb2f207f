"""StoryVideoQA aligned scripts (StoryMindv2 §3.1, "Data Collection") to scenes, lines and cues.

One workbook per video with sheets `subtitle` (srt cues), `script` (parsed screenplay rows:
`record_type` scene | dialog | action | description | time_lapse, `scene_index`, `characters`,
`location`, `content`, and for films/GOT a `description` stage direction), `results` (the
release's automatic alignment) and `results_human` (the human-corrected one). TV sheets carry
an episode suffix (`subtitle_S01E01`, `result_S01E15_`); TV workbooks repeat `script` as
`scripts`. The JSON conversion is `{sheet: [rows keyed by the header row]}` with every cell a
string; `.xlsx` workbooks are read into exactly that shape.

Choices (the release does not say):
- A new scene starts whenever `scene_index` changes (Harry Potter 1 has one non-monotonic
  index), so our `scene_index` is the 0-based order of those blocks.
- `scene` rows carry the scene's opening description: kept as a direction line.
- A dialog row's `description` (films, GOT) becomes a direction line right after it; a
  leading `(…)` in dialog text becomes the parenthetical.
- `location` longer than eight words is an action paragraph the parser put there when a scene
  has no slugline (Chinatown scene 1): the scene then has no location.
- `matched_line` is the human-corrected `results_human.index_result`, mapped to our line index;
  a results_human row is tied to its cue by (start, end, text), duplicates in order.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from data_access.importers.errors import fail
from data_access.importers.json_files import read_json_file

SHEET_ROLES = ("subtitle", "script", "results", "results_human")
_SUFFIX = re.compile(r"_S\d+E\d+_?$")
_CLOCK = re.compile(r"(\d+):(\d\d):(\d\d)[,.](\d+)")
_SLUG = re.compile(r"^(INT\.?/EXT\.?|EXT\.?/INT\.?|INT\.|EXT\.|I/E\.?)\s*", re.IGNORECASE)
_TIME_OF_DAY = re.compile(
    r"\s+[-–—]+\s*(DAY|NIGHT|MORNING|EVENING|AFTERNOON|DUSK|DAWN|SUNSET|"
    r"SUNRISE|LATER|CONTINUOUS|MOMENTS LATER|SAME TIME|NIGHT \(LATER\))$",
    re.IGNORECASE,
)
_PAREN = re.compile(r"^\s*(\([^)]*\))\s*(.*)$", re.DOTALL)


def sheet_role(name: str) -> str | None:
    """`subtitle_S01E01` -> subtitle, `result_S01E15_` -> results, `scripts` -> None (a copy)."""
    base = _SUFFIX.sub("", name.strip())
    base = {"result": "results"}.get(base, base)
    return base if base in SHEET_ROLES else None


def read_workbook(path: Path) -> dict[str, list[dict]]:
    """An `.xlsx` workbook as `{sheet: [rows keyed by header]}`, cells as strings, like the
    JSON conversion (empty headers become `Unnamed: i`, as pandas names them)."""
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise fail(path.name, "(file)", "-", f"not a readable .xlsx workbook: {exc}") from None
    sheets = {}
    try:
        for sheet in book.worksheets:
            rows = sheet.iter_rows(values_only=True)
            header = next(rows, None) or ()
            names = [
                str(h) if h not in (None, "") else f"Unnamed: {i}" for i, h in enumerate(header)
            ]
            sheets[sheet.title] = [
                {name: _cell_text(value) for name, value in zip(names, row)}
                for row in rows
                if any(value not in (None, "") for value in row)
            ]
    finally:
        book.close()
    return sheets


def _cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _checked_rows(file: str, sheet: str, rows) -> list[dict]:
    """A sheet as rows of text cells (null read as empty); a wrong shape names the cell."""
    if not isinstance(rows, list):
        raise fail(file, f"sheet {sheet}", "-", "must be a list of rows (objects)")
    checked = []
    for number, row in enumerate(rows, start=2):  # row 1 is the header, as in the workbook
        if not isinstance(row, dict):
            raise fail(file, f"sheet {sheet} row {number}", "-", "row must be an object")
        for name, value in row.items():
            if value is not None and not isinstance(value, str):
                raise fail(
                    file,
                    f"sheet {sheet} row {number}",
                    name,
                    f"must be text, like every cell of the release (got {value!r:.60})",
                )
        checked.append({name: value or "" for name, value in row.items()})
    return checked


def read_sheets(path: Path) -> dict[str, list[dict]]:
    """The sheets of one aligned script, by role; raises when a required sheet is missing or a
    sheet is not rows of text cells."""
    if path.suffix == ".xlsx":
        raw = read_workbook(path)
    else:
        raw = read_json_file(path)
        if not isinstance(raw, dict):
            raise fail(path.name, "(file)", "-", "must be a JSON object {sheet: [rows]}")
    sheets: dict[str, list[dict]] = {}
    for name, rows in raw.items():
        role = sheet_role(name)
        if role and role not in sheets:
            sheets[role] = _checked_rows(path.name, name, rows)
    for role in ("subtitle", "script"):
        if role not in sheets:
            raise fail(path.name, f"sheet {role}", "-", f"missing; sheets found: {', '.join(raw)}")
    return sheets


def cue_seconds(text: str) -> float | None:
    """`00:00:49,960` -> 49.96; tolerates a cue number glued before it (`291\\n00:18:35,280`)."""
    match = _CLOCK.search(text or "")
    if not match:
        return None
    hours, minutes, seconds, fraction = match.groups()
    if int(minutes) > 59 or int(seconds) > 59:
        return None  # `99:99:99,999` cannot be a time (the same rule as the .srt reader)
    return (
        int(hours) * 3600 + int(minutes) * 60 + int(seconds) + int(fraction) / 10 ** len(fraction)
    )


def _clean(text: str | None) -> str:
    return (text or "").replace("_x000D_", "").strip()


def split_location(raw: str) -> tuple[str | None, str | None, str | None]:
    """(heading, location, time of day) from the release's `location` cell."""
    text = _clean(raw)
    if not text or text == "None" or len(text.split()) > 8:
        return None, None, None
    if not _SLUG.match(text):
        return None, text, None
    body = _SLUG.sub("", text)
    time_match = _TIME_OF_DAY.search(body)
    time_of_day = time_match.group(1).strip() if time_match else None
    location = body[: time_match.start()].strip() if time_match else body.strip()
    return text, location or None, time_of_day


@dataclass
class AlignedFilm:
    """What one aligned script yields, as store rows (before run/dataset ids)."""

    film_id: str
    scenes: list[dict] = field(default_factory=list)
    script_lines: list[dict] = field(default_factory=list)
    subtitles: list[dict] = field(default_factory=list)
    unresolved_matches: int = 0


def _line(
    film_id: str,
    index: int,
    scene: int,
    kind: str,
    text: str,
    character: str | None = None,
    parenthetical: str | None = None,
) -> dict:
    return {
        "film_id": film_id,
        "line_index": index,
        "scene_index": scene,
        "kind": kind,
        "character": character,
        "parenthetical": parenthetical,
        "text": text,
        "start_s": None,
        "end_s": None,
    }


def _script_rows(film: AlignedFilm, rows: list[dict]) -> dict[str, int]:
    """Fill scenes and lines; return the release row index -> our first line index."""
    line_of: dict[str, int] = {}
    scene, previous = -1, object()
    for number, row in enumerate(rows, start=1):
        release_scene = row.get("scene_index", "")
        if release_scene != previous or scene < 0:
            scene, previous = scene + 1, release_scene
            heading, location, time_of_day = split_location(row.get("location", ""))
            film.scenes.append(
                {
                    "film_id": film.film_id,
                    "scene_index": scene,
                    "heading": heading,
                    "location": location,
                    "time_of_day": time_of_day,
                }
            )
            action = _clean(row.get("location"))
            if location is None and heading is None and len(action.split()) > 8:
                # the parser's "location" is the opening action paragraph: keep it as text
                film.script_lines.append(
                    _line(film.film_id, len(film.script_lines), scene, "direction", action)
                )
        index = row.get("index") or row.get("Unnamed: 0") or str(number)
        kind = row.get("record_type", "").strip()
        text = _clean(row.get("content"))
        line_of[index] = len(film.script_lines)
        if kind == "dialog":
            match = _PAREN.match(text)
            paren, text = (match.group(1), match.group(2).strip()) if match else (None, text)
            film.script_lines.append(
                _line(
                    film.film_id,
                    len(film.script_lines),
                    scene,
                    "dialogue",
                    text,
                    _clean(row.get("characters")) or None,
                    paren,
                )
            )
        elif text:
            film.script_lines.append(
                _line(film.film_id, len(film.script_lines), scene, "direction", text)
            )
        else:
            line_of.pop(index)
        description = _clean(row.get("description"))
        if description:
            line_of.setdefault(index, len(film.script_lines))
            film.script_lines.append(
                _line(film.film_id, len(film.script_lines), scene, "direction", description)
            )
    return line_of


def _human_matches(rows: list[dict]) -> dict[tuple, deque]:
    by_cue: dict[tuple, deque] = defaultdict(deque)
    for row in rows:
        key = (row.get("start_time"), row.get("end_time"), _clean(row.get("dialog")))
        by_cue[key].append(row.get("index_result", ""))
    return by_cue


def _subtitle_rows(
    film: AlignedFilm,
    cues: list[dict],
    human: list[dict] | None,
    line_of: dict[str, int],
    file: str,
) -> None:
    matches = _human_matches(human or [])
    for number, cue in enumerate(cues, start=1):
        start, end = cue_seconds(cue.get("start_time")), cue_seconds(cue.get("end_time"))
        if start is None or end is None:
            bad = "start_time" if start is None else "end_time"
            raise fail(
                file,
                f"sheet subtitle row {number + 1}",
                bad,
                f"not a cue time HH:MM:SS,mmm with minutes and seconds below 60"
                f" (got {cue.get(bad)!r})",
            )
        queue = matches.get((cue.get("start_time"), cue.get("end_time"), _clean(cue.get("dialog"))))
        target = (queue.popleft() if len(queue) > 1 else queue[0]) if queue else None
        line = line_of.get(target) if target else None
        if target and line is None:
            film.unresolved_matches += 1
        film.subtitles.append(
            {
                "film_id": film.film_id,
                "cue_index": number - 1,
                "start_s": start,
                "end_s": max(end, start),
                "text": _clean(cue.get("dialog")),
                "matched_line": line,
            }
        )


def _line_times(film: AlignedFilm) -> None:
    for cue in film.subtitles:
        if cue["matched_line"] is None:
            continue
        line = film.script_lines[cue["matched_line"]]
        line["start_s"] = (
            cue["start_s"] if line["start_s"] is None else min(line["start_s"], cue["start_s"])
        )
        line["end_s"] = cue["end_s"] if line["end_s"] is None else max(line["end_s"], cue["end_s"])


def _scene_times(film: AlignedFilm, runtime_s: float | None) -> None:
    """Matched scenes span their matched cues; the others share the gap between matched
    neighbours evenly (time_source interpolated); film start is 0 s, film end the runtime."""
    spans: dict[int, list[float]] = {}
    for line in film.script_lines:
        if line["start_s"] is not None:
            span = spans.setdefault(line["scene_index"], [line["start_s"], line["end_s"]])
            span[0], span[1] = min(span[0], line["start_s"]), max(span[1], line["end_s"])
    scenes = film.scenes
    for scene in scenes:
        span = spans.get(scene["scene_index"])
        scene.update(
            start_s=span[0] if span else None,
            end_s=span[1] if span else None,
            time_source="matched" if span else "none",
        )
    position = 0
    while position < len(scenes):
        if scenes[position]["time_source"] == "matched":
            position += 1
            continue
        gap_end = position
        while gap_end < len(scenes) and scenes[gap_end]["time_source"] != "matched":
            gap_end += 1
        low = scenes[position - 1]["end_s"] if position > 0 else 0.0
        high = scenes[gap_end]["start_s"] if gap_end < len(scenes) else runtime_s
        if high is not None and high >= low:
            step = (high - low) / (gap_end - position)
            for offset, scene in enumerate(scenes[position:gap_end]):
                scene.update(
                    start_s=low + offset * step,
                    end_s=low + (offset + 1) * step,
                    time_source="interpolated",
                )
        position = gap_end


def build_aligned_film(film_id: str, path: Path, runtime_s: float | None) -> AlignedFilm:
    """Scenes, lines and cues of one aligned script (`.json` conversion or `.xlsx`)."""
    sheets = read_sheets(path)
    film = AlignedFilm(film_id)
    line_of = _script_rows(film, sheets["script"])
    _subtitle_rows(film, sheets["subtitle"], sheets.get("results_human"), line_of, path.name)
    _line_times(film)
    _scene_times(film, runtime_s)
    return film
