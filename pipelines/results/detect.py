"""`--format auto`: tell a results file's harness from its name, then from its first record."""

from __future__ import annotations

import json
from pathlib import Path

from data_access.importers.errors import ImportFailure, fail
from data_access.importers.results.formats import RESULTS_FORMATS
from pipelines.results import bounded
from pipelines.results.harness_samples import (
    LM_EVAL_NAMING,
    LMMS_EVAL_NAMING,
    document_shape,
    records,
    written_by,
)

_PEEK_BYTES = 1 << 16


def _first_line(path: Path) -> dict | None:
    with path.open("rb") as handle:
        for number, raw in bounded.lines(handle, path.name):
            if raw.strip():
                try:
                    text = raw.decode("utf-8-sig")
                    value = bounded.loads_record(text, path.name, f"line {number}")
                except (UnicodeDecodeError, json.JSONDecodeError, ImportFailure):
                    return None
                return value if isinstance(value, dict) else None
    return None


def _samples_format(path: Path) -> str | None:
    """lmms-eval or lm-eval for a `--log_samples` file, by its name and first record."""
    document = document_shape(path)
    if document is not None:
        first = next(records(path), (None, None))[1] if _peek_has(path, "doc_id") else None
        return written_by(path.name, first, document) if first is not None else None
    line = _first_line(path)
    if line is not None and "doc_id" not in line:
        return None
    return written_by(path.name, line) or ("lmms-eval" if line else None)


def _peek_has(path: Path, key: str) -> bool:
    with path.open("rb") as handle:
        return f'"{key}"'.encode() in handle.read(_PEEK_BYTES)


def _jsonl_format(path: Path) -> str:
    line = _first_line(path) or {}
    if "custom_id" in line and ("response" in line or "error" in line or "url" in line):
        return "openai-batch"  # an input line (url, body) is refused by the reader, with why
    return _samples_format(path) or "table"


def _json_format(path: Path) -> str:
    if LM_EVAL_NAMING[0].match(path.name):  # lm-eval's JSON lines under .json (May-June 2024)
        return _samples_format(path) or "lm-eval"
    with path.open("rb") as handle:
        head = handle.read(_PEEK_BYTES).decode("utf-8", errors="replace")
    if '"eval"' in head and '"version"' in head:
        return "inspect"
    found = _samples_format(path)  # JSON lines under another .json name, or one document
    if found is not None:
        return found
    raise fail(
        path.name,
        "(file)",
        "-",
        "cannot tell the format (a results summary? give the per-sample file); pass --format",
    )


def _readers_of(suffix: str) -> list[str]:
    """The registered formats that read files ending `suffix` (formats.py)."""
    return [f.name for f in RESULTS_FORMATS.values() if suffix.lstrip(".") in f.extensions]


def _file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _json_format(path)
    if suffix == ".jsonl":
        return _jsonl_format(path)
    readers = _readers_of(suffix)
    if len(readers) == 1:  # an ending one format alone reads (.eval, .xlsx, .csv, ...)
        return readers[0]
    raise fail(path.name, "(file)", "-", "cannot tell the format from the name; pass --format")


def detect_format(path: Path) -> str:
    """The format of a results file, or of the one harness run a folder holds."""
    if not path.is_dir():
        return _file_format(path)
    names = [p.name for p in path.iterdir()]
    samples = sorted(n for n in names if LM_EVAL_NAMING[0].match(n) or LMMS_EVAL_NAMING[0].match(n))
    if samples:
        return _samples_format(path / samples[0]) or "lmms-eval"
    owned = [r[0] for n in sorted(names) if len(r := _readers_of(Path(n).suffix.lower())) == 1]
    harness_owned = [name for name in owned if name != "table"]
    if harness_owned:  # a folder of .eval logs, of VLMEvalKit .xlsx / .tsv files
        return harness_owned[0]
    raise fail(str(path), "(folder)", "-", "no results file of a known harness; pass --format")
