"""StoryVideoQA golden questions (`<source>_golden.json`) to `mcq_questions` records.

Each file is a JSON array of items `{id, vid, question, choices, GT, option, question_type,
story_element, characters, locations, times, gemini_check, claude_check, gpt_check}`
(StoryVideoQA §4, Table 6 "StoryVideoQA-G"). Items are validated with the interchange model
`McqQuestion`, whose field constraints and cross-field `ROW_RULES` (option within the
choices, GT the text of that choice) the interchange importer derives its SQL checks from, so
the two import paths accept the same questions. The release adds one rule of its own: every
item has an integer `id`, since the question's key `<source>:<vid>:<id>` is built from it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import ValidationError

from data_access.formats.mcq_records import McqQuestion, RuleBroken
from data_access.importers.errors import ImportFailure, Problem, fail
from data_access.importers.json_files import read_json_file

GOLDEN_SUFFIX = "_golden.json"
CHECK_FIELDS = ("gemini_check", "claude_check", "gpt_check")
# Release fields with a column of their own; anything else goes to `extra`.
KNOWN_FIELDS = {
    "id",
    "vid",
    "question",
    "choices",
    "GT",
    "option",
    "question_type",
    "story_element",
    "characters",
    "locations",
    "times",
    *CHECK_FIELDS,
}


def clock_seconds(text: str) -> float | None:
    """Seconds of `H:MM:SS` / `MM:SS`; None when the text is not a clock time.

    A stray leading `00` group (`00:00:21:33`, seen in the release) is dropped.
    """
    parts = text.strip().split(":")
    if not all(part.isdigit() for part in parts):
        return None
    numbers = [int(part) for part in parts]
    while len(numbers) > 3 and numbers[0] == 0:
        numbers = numbers[1:]
    if len(numbers) > 3:
        return None
    hours, minutes, seconds = [0] * (3 - len(numbers)) + numbers
    return hours * 3600.0 + minutes * 60.0 + seconds


def span_seconds(span: str) -> float | None:
    """Length in seconds of one evidence span `start-end` (a single time counts 0 s).

    Returns None for non-spans seen in the release (`cross scene`, `throughout`, ``) and for
    spans that end before they start. An abbreviated end that would end before the start
    (`00:09:41-00:45`) keeps the start's hours and minutes: its last number is the seconds
    (00:09:45) — the reading that makes every such span in the release a few seconds long.
    """
    pieces = span.split("-")
    if len(pieces) == 1:
        return 0.0 if clock_seconds(pieces[0]) is not None else None
    if len(pieces) != 2:
        return None
    start, end = clock_seconds(pieces[0]), clock_seconds(pieces[1])
    if start is None or end is None:
        return None
    if end < start and pieces[1].count(":") < pieces[0].count(":"):
        end = start - start % 60 + int(pieces[1].rsplit(":", 1)[-1])
    return end - start if end >= start else None


def evidence_seconds(times: list[str]) -> tuple[float | None, list[str]]:
    """Total length of the evidence spans (as released, overlaps counted twice) and the
    spans that could not be read; None when no span could be read."""
    total, unread = 0.0, []
    for span in times:
        length = span_seconds(span)
        if length is None:
            unread.append(span)
        else:
            total += length
    return (None if len(unread) == len(times) else total), unread


def source_of(path: Path) -> str:
    """`Friends_golden.json` -> `Friends`."""
    return path.name[: -len(GOLDEN_SUFFIX)]


RELEASE_NAMES = {"gt": "GT", "qid": "id"}  # model field -> the release's field name


def _item_problems(file: str, record: str, exc: ValidationError) -> list[Problem]:
    problems = []
    for error in exc.errors():
        broken = (error.get("ctx") or {}).get("error")
        if isinstance(broken, RuleBroken):
            loc, message = broken.rule.field, broken.rule.message
        else:
            loc, message = ".".join(str(part) for part in error["loc"]) or "-", error["msg"]
        got = f" (got {error['input']!r:.60})" if error["type"] != "missing" and loc != "-" else ""
        problems.append(Problem(file, record, RELEASE_NAMES.get(loc, loc), message + got))
    return problems


def _record(source: str, item: dict) -> dict:
    return {
        "mcq_id": f"{source}:{item.get('vid')}:{item.get('id')}",
        "set_name": "golden",
        "source": source,
        "vid": item.get("vid"),
        "qid": item.get("id"),
        "question": item.get("question"),
        "choices": item.get("choices"),
        "gt": item.get("GT"),
        "option": item.get("option"),
        "question_type": item.get("question_type"),
        "story_element": item.get("story_element"),
        "characters": item.get("characters") or [],
        "locations": item.get("locations") or [],
        "times": item.get("times") or [],
    }


def _row(source: str, item: dict, question: McqQuestion) -> dict:
    seconds, unread = evidence_seconds(question.times)
    extra = {key: value for key, value in item.items() if key not in KNOWN_FIELDS}
    if unread:
        extra["unread_times"] = unread
    row = question.model_dump()
    row.update(
        {
            "evidence_seconds": seconds,
            **{name: json.dumps(item.get(name)) if name in item else None for name in CHECK_FIELDS},
            "extra": json.dumps(extra) if extra else None,
        }
    )
    return row


def read_golden_file(path: Path) -> list[dict]:
    """Every item of one golden file as an `mcq_questions` row; bad items raise."""
    items = read_json_file(path)
    if not isinstance(items, list):
        raise fail(path.name, "(file)", "-", "must be a JSON array of question items")
    source = source_of(path)
    rows, problems = [], []
    for number, item in enumerate(items, start=1):
        record = f"item {number}" + (f" (id {item.get('id')})" if isinstance(item, dict) else "")
        if not isinstance(item, dict):
            problems.append(Problem(path.name, record, "-", "item is not a JSON object"))
            continue
        if item.get("id") is None:
            problems.append(
                Problem(path.name, record, "id", "missing: every release item needs an integer id")
            )
            continue
        try:
            question = McqQuestion.model_validate(_record(source, item))
        except ValidationError as exc:
            problems += _item_problems(path.name, record, exc)
            continue
        rows.append(_row(source, item, question))
        if len(problems) >= 10:
            break
    if problems:
        raise ImportFailure(problems)
    return rows


def duplicate_problems(file_rows: dict[str, list[dict]]) -> list[Problem]:
    """Items whose `<source>:<vid>:<id>` repeats an earlier item."""
    seen: dict[str, str] = {}
    problems = []
    for file, rows in file_rows.items():
        for number, row in enumerate(rows, start=1):
            where = f"{file} item {number}"
            if row["mcq_id"] in seen:
                problems.append(
                    Problem(
                        file,
                        f"item {number} (id {row['qid']})",
                        "id",
                        f"duplicate mcq_id {row['mcq_id']!r}: same as {seen[row['mcq_id']]}",
                    )
                )
            else:
                seen[row["mcq_id"]] = where
    return problems


_EPISODE = re.compile(r"^(?P<series>.+)-S(?P<season>\d+)E(?P<episode>\d+)$")


def parse_vid(vid: str) -> dict:
    """Film fields from a release video id (`Friends-S01E01`, `IMDB-001-The Shawshank
    Redemption`)."""
    match = _EPISODE.match(vid)
    if match:
        series = SERIES_NAMES.get(match["series"], match["series"])
        season, episode = int(match["season"]), int(match["episode"])
        return {
            "kind": "episode",
            "series": series,
            "season": season,
            "episode": episode,
            "title": f"{series} S{season:02d}E{episode:02d}",
        }
    movie = re.match(r"^(?P<list>IMDB|douban)-(?P<rank>\d+)-(?P<title>.+)$", vid)
    title = movie["title"] if movie else vid
    return {"kind": "film", "series": None, "season": None, "episode": None, "title": title}


SERIES_NAMES = {"Friends": "Friends", "BigBang": "The Big Bang Theory", "GOT": "Game of Thrones"}
