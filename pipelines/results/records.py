"""Reading harness files record by record: JSONL lines, nested fields, and the faults that make
a file not what its format says (one `error:` naming file, record and field)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_access.importers.errors import fail
from pipelines.results import bounded


def iter_jsonl(path: Path, label: str | None = None) -> Iterator[tuple[str, dict]]:
    """(record label, object) per non-blank line, streamed.

    Harness writers use Python's `json.dumps`, which writes NaN / Infinity for non-finite
    metrics, so those are read as Python reads them (the values we import are texts and ids).

    Raises:
        ImportFailure: a line is not JSON (a truncated file ends so) or not a JSON object, or
            the text is not UTF-8.
    """
    label = label or path.name
    bounded.refuse_unreadable(path, label)
    with path.open("rb") as handle:
        for number, raw in bounded.lines(handle, label):
            if not raw.strip():
                continue
            record = f"line {number}"
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                value = bounded.loads_record(text, label, record)
            except UnicodeDecodeError as exc:
                raise fail(
                    label, record, "-", f"text is not UTF-8 (byte {exc.start + 1})"
                ) from None
            except json.JSONDecodeError as exc:
                cut = "" if raw.endswith(b"\n") else " (the file ends mid-record: truncated?)"
                raise fail(label, record, "-", f"invalid JSON: {exc.msg}{cut}") from None
            if not isinstance(value, dict):
                raise fail(label, record, "-", "must be a JSON object")
            yield record, value


def read_json_document(path: Path) -> Any:
    """A whole JSON file, as Python's `json` (which the harnesses write with) reads it."""
    try:
        text = bounded.read_whole(path, path.name).decode("utf-8-sig")
        return bounded.loads_record(text, path.name, "(file)")
    except UnicodeDecodeError as exc:
        raise fail(path.name, "(file)", "-", f"text is not UTF-8 (byte {exc.start + 1})") from None
    except json.JSONDecodeError as exc:
        raise fail(path.name, f"line {exc.lineno}", "-", f"invalid JSON: {exc.msg}") from None


def read_json_object(path: Path) -> dict:
    """A whole (small) JSON file that must hold an object, e.g. a harness's results summary."""
    value = read_json_document(path)
    if not isinstance(value, dict):
        raise fail(path.name, "(file)", "-", "must be a JSON object")
    return value


_MISSING = object()


def dig(value: Any, dotted: str) -> Any:
    """`value["a"]["b"]` for `a.b` (list items by number: `resps.0`); None when absent."""
    for part in dotted.split("."):
        if isinstance(value, dict):
            value = value.get(part, _MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
        if value is _MISSING:
            return None
    return value


def as_id(value: Any) -> str | None:
    """An id as text (harnesses write ints and strings); None for absent or blank."""
    if value is None or isinstance(value, (bool, dict, list)):
        return None
    text = str(value).strip()
    return text or None


def first_text(value: Any) -> str | None:
    """The first string of a (nested) response list: `["x"]`, `[["x", "y"]]` -> `x`."""
    while isinstance(value, list | tuple):
        if not value:
            return None
        value = value[0]
    return value if isinstance(value, str) else None


def require(value: dict, field: str, label: str, record: str, what: str) -> Any:
    """`value[field]`, or the error that the record is not `what` (a wrong --format)."""
    if field not in value:
        raise fail(label, record, field, f"missing: not {what} (is --format right?)")
    return value[field]
