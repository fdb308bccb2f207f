"""Which files of a dataset folder an importer reads, and which it must refuse up front.

Shared by both importers, so no data file is skipped in silence:

- Every entry the importer would read must be a regular, readable file. A FIFO, socket or
  device would make a read block forever or return garbage, a folder or a dangling or looping
  symlink cannot be read: each is refused before any reading starts, naming the entry.
- A file that looks like data (its suffixes include one of `DATA_SUFFIXES`, in any case) but
  does not have an expected name is refused with the name expected, so `films.json`,
  `films.JSONL`, `films.ndjson` or `films.jsonl.gz` never pass as "not a table" with exit 0.
- Hidden entries (`.DS_Store`, `.git`) and files that are not data (`README.md`, `notes.txt`)
  are ignored, as documented in docs/FORMAT.md.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from data_access.importers.errors import Problem

# Suffixes of files that hold data in some format: one of them in a name that is not an
# expected one is a near-miss, never an unrelated file.
DATA_SUFFIXES = frozenset(
    {
        ".json",
        ".jsonl",
        ".ndjson",
        ".jsonlines",
        ".parquet",
        ".pq",
        ".xlsx",
        ".xls",
        ".csv",
        ".tsv",
        ".gz",
        ".bz2",
        ".xz",
        ".zst",
        ".zip",
    }
)


def is_hidden(path: Path) -> bool:
    return path.name.startswith(".")


def looks_like_data(path: Path) -> bool:
    """True when any suffix of the name (`.jsonl.gz` has two) is a data suffix, in any case."""
    return any(suffix.lower() in DATA_SUFFIXES for suffix in path.suffixes)


def unreadable_problem(path: Path, label: str | None = None) -> Problem | None:
    """Why `path` cannot be read as a regular file (without opening it), or None."""
    label = label or path.name
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        what = "a dangling symlink (its target is missing)" if path.is_symlink() else "missing"
        return Problem(label, "(file)", "-", f"{what}: point it at a real file or remove it")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Problem(label, "(file)", "-", "a symlink loop: point it at a real file")
        return Problem(label, "(file)", "-", f"cannot be read: {exc.strerror}")
    if stat.S_ISDIR(mode):
        return Problem(label, "(file)", "-", "is a folder, not a file")
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file (a device or socket)"
        return Problem(label, "(file)", "-", f"is {kind}: give a regular file (refused unread)")
    if not os.access(path, os.R_OK):
        return Problem(label, "(file)", "-", "cannot be read (permission denied): check its mode")
    return None


def entries(folder: Path) -> list[Path]:
    """The folder's entries in name order, hidden ones left out; an unreadable folder raises
    `OSError` (mapped to a message by the CLI)."""
    return sorted(path for path in folder.iterdir() if not is_hidden(path))


def unreadable_problems(paths: list[Path], base: Path | None = None) -> list[Problem]:
    """`unreadable_problem` for each path, labelled relative to `base` when given."""
    problems = []
    for path in paths:
        label = str(path.relative_to(base)) if base else path.name
        problem = unreadable_problem(path, label)
        if problem is not None:
            problems.append(problem)
    return problems
