"""`--format auto`: tell a results file's harness from its name, then from its first record."""

from __future__ import annotations

import json
import re
from pathlib import Path

from data_access.importers.errors import ImportFailure, fail
from pipelines.results import bounded

_LMMS_NAME = re.compile(r"^.+_samples_.+\.jsonl$")
_LM_EVAL_NAME = re.compile(r"^samples_.+_\d{4}-\d{2}-\d{2}T[\d.\-]+\.jsonl$")
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


def _jsonl_format(path: Path) -> str:
    if _LM_EVAL_NAME.match(path.name):
        return "lm-eval"
    if _LMMS_NAME.match(path.name):
        return "lmms-eval"
    line = _first_line(path) or {}
    if "custom_id" in line and ("response" in line or "error" in line):
        return "openai-batch"
    if "doc_id" in line:
        return "lm-eval" if isinstance(line.get("arguments"), dict) else "lmms-eval"
    return "table"


def _json_format(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(_PEEK_BYTES).decode("utf-8", errors="replace")
    if '"eval"' in head and '"version"' in head:
        return "inspect"
    raise fail(
        path.name,
        "(file)",
        "-",
        "cannot tell the format (a results summary? give the per-sample file); pass --format",
    )


def _file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return "inspect"
    if suffix == ".json":
        return _json_format(path)
    if suffix == ".jsonl":
        return _jsonl_format(path)
    if suffix in (".xlsx", ".tsv"):
        return "vlmevalkit"
    if suffix in (".csv", ".parquet"):
        return "table"
    raise fail(path.name, "(file)", "-", "cannot tell the format from the name; pass --format")


def detect_format(path: Path) -> str:
    """The format of a results file, or of the one harness run a folder holds."""
    if not path.is_dir():
        return _file_format(path)
    names = [p.name for p in path.iterdir()]
    if any(_LM_EVAL_NAME.match(n) for n in names):
        return "lm-eval"
    if any(_LMMS_NAME.match(n) for n in names):
        return "lmms-eval"
    if any(n.endswith(".eval") for n in names):
        return "inspect"
    if any(n.endswith((".xlsx", ".tsv")) for n in names):
        return "vlmevalkit"
    raise fail(str(path), "(folder)", "-", "no results file of a known harness; pass --format")
