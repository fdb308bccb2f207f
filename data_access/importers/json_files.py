"""The one way every importer reads a JSON file, a JSON Lines file or one JSON text.

Interchange manifests, StoryVideoQA golden files, scripts and meta files, FABLES, StorySumm,
the ToM datasets and prediction files all come through here, so one set of rules holds for
every one of them (docs/FORMAT.md, "JSON files"):

- UTF-8 (a leading byte-order mark is tolerated); anything else is refused naming the file and
  the byte.
- RFC 8259 values only: `NaN`, `Infinity` and `-Infinity` are refused (a non-finite number
  passes every `> 0` bound).
- No key twice in one object: Python (like most readers) keeps the last value silently, so a
  manifest with two `dataset_id`s would import under whichever came second.
- At most `MAX_DEPTH` levels of nesting. Python's reader recurses once per level and fails with
  a `RecursionError` around the interpreter's recursion limit (and a value parsed just below it
  fails later, in `repr` or `json.dumps`); no dataset we read nests beyond ten levels.
- JSON Lines are split on `\\n` only (`str.splitlines` also splits inside a string holding
  U+2028 and would name a line the file does not have).

Every fault is a `JsonFileError`: an `ImportFailure` (the importers let it rise as it is) and a
`ValueError` (the readers under `pipelines/` catch those), naming file, line and field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from data_access.importers.errors import ImportFailure, Problem

MAX_DEPTH = 100
# A JSON string literal (the unrolled form: no per-character alternation, so it is fast).
_STRING_LITERAL = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_OPENERS = (ord("["), ord("{"))


class JsonFileError(ImportFailure, ValueError):
    """A JSON file (or one of its lines) that breaks a rule of this module."""

    def __init__(self, file: str, record: str, field: str, message: str):
        self.problem = Problem(file, record, field, message)
        super().__init__([self.problem])

    def __str__(self) -> str:
        return str(self.problem)


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


class _NotJsonConstant(ValueError):
    pass


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook`: the object, unless it names a key twice."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


def _refuse_constant(name: str) -> Any:
    raise _NotJsonConstant(f"{name} is not a JSON value (JSON numbers are finite)")


def _max_depth(text: str) -> int:
    """How deeply `text` nests arrays and objects (brackets inside strings do not count)."""
    brackets = _NOT_A_BRACKET.sub("", _STRING_LITERAL.sub("", text))
    if len(brackets) <= MAX_DEPTH:
        return len(brackets)  # cannot nest deeper than it has brackets (the common small text)
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where(np.isin(codes, _OPENERS), 1, -1)
    return int(np.cumsum(steps).max())


def _deep_position(text: str) -> int:
    """The offset where `text` first nests deeper than `MAX_DEPTH` (the error path only)."""
    depth, in_string, escaped = 0, False, False
    for offset, char in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return offset
        elif char in "]}":
            depth -= 1
    return len(text)


def _line_and_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _where(text: str, offset: int, record: str | None) -> str:
    """`line N` of a file (`record` when the text is one record of a larger file)."""
    if record is not None:
        return record
    if offset >= len(text.rstrip()):
        return "end of file"
    return f"line {_line_and_column(text, offset)[0]}"


def _too_deep(file: str, text: str, record: str | None) -> JsonFileError:
    offset = _deep_position(text)
    line, column = _line_and_column(text, offset)
    at = f"column {column}" if record is not None else f"line {line}, column {column}"
    return JsonFileError(
        file,
        _where(text, offset, record),
        "-",
        f"nested more than {MAX_DEPTH} levels deep (at {at}): flatten the data",
    )


def check_depth(text: str, file: str, record: str | None = None) -> None:
    """Refuse a JSON text nested deeper than `MAX_DEPTH` (for readers that parse it their own
    way, e.g. the results readers, which accept the NaN harnesses write).

    Raises:
        JsonFileError: naming file, line (or record) and where the nesting goes too deep.
    """
    if _max_depth(text) > MAX_DEPTH:
        raise _too_deep(file, text, record)


def loads_json(text: str, file: str, record: str | None = None) -> Any:
    """Parse one JSON text under this module's rules.

    Args:
        text: the JSON text (decoded).
        file: the file name the errors name.
        record: the label of the record when `text` is one line of a file (`line 7`); None
            when it is the whole file (errors then name the line inside it).

    Raises:
        JsonFileError: the text breaks a rule; names file, line (or record) and field.
    """
    if not text.strip():
        raise JsonFileError(file, record or "(file)", "-", "empty: no JSON value")
    if _max_depth(text) > MAX_DEPTH:
        raise _too_deep(file, text, record)
    try:
        return json.loads(
            text, object_pairs_hook=_object_without_repeats, parse_constant=_refuse_constant
        )
    except json.JSONDecodeError as exc:
        at = (
            f"column {exc.colno}"
            if record is not None
            else f"line {exc.lineno}, column {exc.colno}"
        )
        where = _where(text, exc.pos, record)
        if where == "end of file":
            message = f"invalid JSON: the file ends before the value does ({exc.msg})"
        else:
            message = f"invalid JSON: {exc.msg} ({at})"
        raise JsonFileError(file, where, "-", message) from None
    except _DuplicateKey as exc:
        raise JsonFileError(
            file,
            record or _key_line(text, exc.key),
            exc.key,
            "the key appears twice in one object (JSON keys must be unique): keep one",
        ) from None
    except _NotJsonConstant as exc:
        raise JsonFileError(file, record or "(file)", "-", f"invalid JSON: {exc}") from None
    except RecursionError:  # the stack was deep already when we were called
        raise _too_deep(file, text, record) from None


def _key_line(text: str, key: str) -> str:
    """`line N` of the key's second appearance (the repeat, unless it also names a key of an
    earlier object), or `(file)`."""
    pattern = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    matches = list(pattern.finditer(text))
    if len(matches) < 2:
        return "(file)"
    return f"line {_line_and_column(text, matches[1].start())[0]}"


def decode_utf8(data: bytes, file: str) -> str:
    """The bytes as UTF-8 text without a leading byte-order mark; else a `JsonFileError`."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise JsonFileError(
            file,
            f"line {line}",
            "-",
            f"text is not UTF-8 (byte 0x{data[exc.start]:02X} at offset {exc.start}):"
            " re-save the file as UTF-8",
        ) from None


def read_json_file(path: str | Path, label: str | None = None) -> Any:
    """The JSON value of a file under this module's rules.

    Args:
        path: the file.
        label: the name errors give the file (default: its name).

    Raises:
        JsonFileError: the file breaks a rule (names file, line and field).
        OSError: the file cannot be read.
    """
    path = Path(path)
    file = label or path.name
    return loads_json(decode_utf8(path.read_bytes(), file), file)


def read_json_lines(path: str | Path, label: str | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of a JSON Lines file, lines split on `\\n`
    only, each value under this module's rules."""
    path = Path(path)
    file = label or path.name
    text = decode_utf8(path.read_bytes(), file)
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, loads_json(line, file, f"line {number}")
