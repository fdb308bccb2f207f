"""Where a command may write a file: the one policy every file-writing command goes through.

A mistyped `--out` must never destroy data: `storyscope export ... --out` naming the
store itself once replaced a 24 MB store with a 4 KB JSONL file. So every command that writes a
file the user named (`export`, `store backup`, `synth --out`, and any new one) asks
`safe_output_path` first, which refuses

- a path that is, or resolves to (symlinks, `..`), or is a hard link of (same device and inode),
  the store, its `.wal`, or any file the command reads;
- an existing file (a dangling symlink included), unless the user said `--force` (then it is
  replaced whole, never truncated in place: `replace_atomically`);
- a folder where a file is expected, or a parent that is not a folder.

The checks are on the path as the filesystem sees it when the command starts; a file swapped in
between the check and the write by another process is out of reach of any check.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

FORCE_HINT = "add --force to replace it"


class OutputRefused(ValueError):
    """A command was asked to write where it must not; the message says why and what to do."""


def store_files(store_path: Path | str | None) -> list[Path]:
    """The files that make up a store: the database and its write-ahead log."""
    if store_path is None:
        return []
    path = Path(store_path)
    return [path, path.with_name(f"{path.name}.wal")]


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _clash(target: Path, protected: Path) -> bool:
    """Whether writing `target` would write `protected` (same path once resolved, or the same
    file under another name: a hard link)."""
    if target == protected.resolve():
        return True
    mine, theirs = _identity(target), _identity(protected)
    return mine is not None and mine == theirs


def safe_output_path(
    path: Path | str,
    *,
    store: Path | str | None = None,
    reads: Iterable[Path | str] = (),
    force: bool = False,
    label: str = "--out",
) -> Path:
    """Check that a command may write the file `path`; return it resolved.

    Args:
        path: the output file the user named (a CLI argument or option).
        store: the store the command opens; it and its `.wal` are never written.
        reads: other files the command reads (inputs); never written either.
        force: whether the user allowed replacing an existing file (`--force`).
        label: how the command's user named the path (`--out`, `DESTINATION`), for messages.

    Raises:
        OutputRefused: the path is (or resolves to, or is a hard link of) the store, its WAL
            or an input; or it exists and `force` is false; or it is a folder, or its parent
            is not a folder.
    """
    given = Path(path)
    target = given.resolve()
    names = dict(zip(store_files(store), ("the store", "the store's write-ahead log")))
    for protected in [*names, *(Path(p) for p in reads)]:
        if _clash(target, protected):
            what = names.get(protected, "a file this command reads")
            raise OutputRefused(
                f"{label} {given}: that is {what} ({protected}); writing there would destroy it:"
                " give the path of a new file"
            )
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputRefused(f"{label} {given}: is a folder; give the path of a file")
    # a dangling symlink is there too: writing the name would create the file it points to
    if (mode is not None or os.path.lexists(given)) and not force:
        raise OutputRefused(f"{label} {given}: exists already; {FORCE_HINT}")
    if target.parent.exists() and not target.parent.is_dir():
        raise OutputRefused(f"{label} {given}: {target.parent} is not a folder")
    return target


def safe_output_folder(
    folder: Path | str,
    names: Iterable[str],
    *,
    store: Path | str | None = None,
    reads: Iterable[Path | str] = (),
    force: bool = False,
    label: str = "--out",
) -> Path:
    """`safe_output_path` for a command that writes files `names` into `folder`; return the
    folder resolved. The folder may exist (it is not replaced); each file in it is checked."""
    given = Path(folder)
    target = given.resolve()
    if target.exists() and not target.is_dir():
        raise OutputRefused(f"{label} {given}: is a file; give the path of a folder")
    reads = list(reads)
    for name in names:
        safe_output_path(target / name, store=store, reads=reads, force=force, label=label)
    return target


def replace_atomically(target: Path, write: Callable[[Path], object]) -> None:
    """Have `write(temporary_path)` write the file, then move it onto `target` in one step.

    A replaced file (`--force`) is swapped whole, never truncated in place: a failed write
    leaves the old file, and a hard link elsewhere keeps its own content.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # a private folder next to the target: same filesystem (so the move is one rename), and a
    # name no other process can take between our choice and the writer's
    scratch = Path(
        tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    )
    try:
        temporary = scratch / target.name
        write(temporary)
        os.replace(temporary, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
