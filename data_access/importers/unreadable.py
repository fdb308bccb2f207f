"""Why DuckDB could not read a JSONL table file: the first bad line, named with its line number
(not UTF-8 and what it looks like instead, a byte-order mark mid-file, invalid JSON, a record
that is not an object). Only the error path streams the file through Python."""

from __future__ import annotations

import json
from pathlib import Path

import charset_normalizer

from data_access.importers.errors import ImportFailure, Problem, fail
from data_access.importers.json_files import JsonFileError, loads_json


def _field_with_bytes(raw: bytes, encoding: str) -> str:
    """The field whose value holds the non-UTF-8 bytes, when the line still parses."""
    try:
        record = loads_json(raw.decode(encoding), "-", "-")
    except (JsonFileError, UnicodeDecodeError):
        return "-"
    if isinstance(record, dict):
        for key, value in record.items():
            if any(ord(ch) > 127 for ch in json.dumps(value, ensure_ascii=False)):
                return key
    return "-"


def _explain_line(file: str, line_no: int, raw: bytes) -> Problem | None:
    """Why one JSONL line is unreadable, or None when it is fine."""
    body = raw[3:] if line_no == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        guess = charset_normalizer.from_bytes(body).best()
        encoding = guess.encoding if guess else "latin-1"
        return Problem(
            file,
            f"line {line_no}",
            _field_with_bytes(body, encoding),
            f"text is not UTF-8 (byte 0x{body[exc.start]:02X} at column {exc.start + 1};"
            f" looks like {encoding}): re-save the file as UTF-8",
        )
    if text.startswith("\ufeff"):
        return Problem(
            file,
            f"line {line_no}",
            "-",
            "a UTF-8 byte-order mark in the middle of the"
            " file (were two files concatenated?): remove it",
        )
    try:
        record = loads_json(text, file, f"line {line_no}")
    except JsonFileError as exc:
        return exc.problem
    if not isinstance(record, dict):
        return Problem(file, f"line {line_no}", "-", "record is not a JSON object")
    return None


def explain_unreadable(path: Path, duckdb_error: Exception) -> ImportFailure:
    """Stream the file line by line to find the first line DuckDB could not read."""
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if raw.strip():
                problem = _explain_line(path.name, line_no, raw.rstrip(b"\r\n"))
                if problem is not None:
                    return ImportFailure([problem])
    first_line = str(duckdb_error).splitlines()[0]
    return fail(path.name, "(file)", "-", f"could not be read: {first_line}")
