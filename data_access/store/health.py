"""Is a store file usable? Refuse what is not a store, and a damaged one, before any work.

Two checks (README, "Recovering a damaged store"):

- `quick_check` runs on every open (`Store._open_connection`), so it must stay cheap
  (benchmarks/bench_store_check.py measures it against a plain open): DuckDB's own checks
  when it connects (header and catalog checksums), then the file must be long enough for
  the blocks DuckDB says are in use (a truncated copy fails here, though it opens). Then
  a read of every table's storage metadata (`pragma_storage_info`: row groups and the blocks
  their column segments live in), which must point inside the file — once per process and
  file version, since it costs several times an open.
- `full_check` (`storyscope store check`) reads every column of every table, so DuckDB
  verifies the checksum of every data block.

`backup` writes a consistent copy through DuckDB (`ATTACH` + `COPY FROM DATABASE`) under the
store's usual short session, so it works while the app runs.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

import duckdb

# A DuckDB file starts with three 4 KiB headers (the main header and two database headers);
# the blocks follow. Verified against DuckDB 1.x/2.x files: size == 3 * 4096 + blocks * size.
FILE_HEADERS_BYTES = 3 * 4096
RECOVERY = (
    "restore the last good copy (one made by `storyscope store backup PATH`) or rebuild the"
    " store from its sources (`storyscope demo`, `storyscope import ...`); see the README,"
    " 'Recovering a damaged store'"
)
_NOT_DUCKDB_WORDS = ("not a valid duckdb database file", "is not a duckdb", "invalid magic")


class StoreProblem(RuntimeError):
    """The store file cannot be used; the message says why and what to do."""


class StoreMissing(StoreProblem):
    """No store at the path, and the command only reads (it must not create one)."""


class NotAStore(StoreProblem):
    """The path exists but is not a DuckDB database (a folder, a device, another file)."""


class StoreDamaged(StoreProblem):
    """DuckDB opens the file, but part of it is unreadable."""


@dataclass(frozen=True)
class TableCheck:
    """One table's outcome in `full_check`."""

    table: str
    rows: int | None
    problem: str | None = None


def check_path(path: Path, create: bool) -> None:
    """Refuse a path that is not a regular file (or, when `create` is false, is missing)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if path.is_symlink():
            raise NotAStore(
                f"store {path} is a dangling symlink: point it at a store file"
            ) from None
        if not create:
            raise StoreMissing(
                f"no store at {path}: check the --store path (or STORYSCOPE_STORE) for a typo;"
                " only commands that write (import, demo, migrate, ...) create a new store"
            ) from None
        return
    except OSError as exc:
        raise NotAStore(f"store {path} cannot be opened: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise NotAStore(f"store {path} is a folder: give the path of a .duckdb file")
    if not stat.S_ISREG(mode):
        raise NotAStore(
            f"store {path} is not a regular file (a device, FIFO or socket): give the path of"
            " a .duckdb file"
        )
    if mode & 0o444 == 0 or not os.access(path, os.R_OK):
        raise NotAStore(f"store {path} cannot be read (permission denied): check its mode")


def explain_connect_error(path: Path, exc: duckdb.Error) -> StoreProblem | None:
    """A `StoreProblem` for a connect error that says the file is not (or no longer) a store."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    lowered = text.lower()
    if any(words in lowered for words in _NOT_DUCKDB_WORDS):
        empty = path.is_file() and path.stat().st_size == 0
        what = "an empty file" if empty else "not a DuckDB database"
        return NotAStore(
            f"store {path} is {what}: give the path of a StoryScope store, or move the file"
            " away and let an import create a new store there"
        )
    if "could not read enough bytes" in lowered or "corrupt" in lowered or "checksum" in lowered:
        return StoreDamaged(f"store {path} is damaged ({text}): {RECOVERY}")
    if "permission denied" in lowered:
        return NotAStore(f"store {path} cannot be opened (permission denied): check its mode")
    return None


def _size_problem(path: Path, block_size: int, used_blocks: int) -> str | None:
    """A truncated copy opens (its headers are intact) but cannot hold the blocks in use:
    every used block has its own id below the file's block count, so a good file is at least
    headers + used blocks long (free blocks at its end may be missing: DuckDB trims them)."""
    expected = FILE_HEADERS_BYTES + used_blocks * block_size
    actual = path.stat().st_size
    if actual < expected:
        return f"the file is {actual:,} bytes but its blocks in use need {expected:,} (truncated?)"
    return None


def _user_tables(connection: duckdb.DuckDBPyConnection) -> list[str]:
    rows = connection.execute(
        "SELECT table_name FROM duckdb_tables()"
        " WHERE database_name = current_database() AND NOT temporary ORDER BY table_name"
    ).fetchall()
    return [row[0] for row in rows]


def _metadata_problem(
    connection: duckdb.DuckDBPyConnection, path: Path, block_size: int
) -> str | None:
    """Every table's storage metadata (row groups and the blocks their column segments live
    in) read in one query; reading it verifies the checksums of the blocks that hold it, and
    every persistent block must lie inside the file."""
    tables = _user_tables(connection)
    if not tables:
        return None
    union = " UNION ALL ".join(
        "SELECT ? AS t, max(block_id) AS b FROM pragma_storage_info(?) WHERE persistent"
        for _ in tables
    )
    params = [value for table in tables for value in (table, table)]
    blocks_in_file = max(0, path.stat().st_size - FILE_HEADERS_BYTES) // block_size
    try:
        rows = connection.execute(
            f"SELECT t, b FROM ({union}) WHERE b >= ? ORDER BY b DESC LIMIT 1",
            [*params, blocks_in_file],
        ).fetchall()
    except duckdb.Error as exc:
        return str(exc).splitlines()[0]
    if rows:
        table, highest = rows[0]
        return (
            f"table {table} uses block {highest}, but the file holds {blocks_in_file} (truncated?)"
        )
    return None


def _file_identity(path: Path) -> tuple[int, int, int, int]:
    info = path.stat()
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


# Files whose metadata passed, by path, with the identity they had then: the metadata read is
# repeated only when the file changed (another writer, a copy put in its place), so an app
# that opens the store for every page query pays the size check alone (bench_store_check.py).
_metadata_ok: dict[Path, tuple[int, int, int, int]] = {}
_metadata_lock = threading.Lock()


def note_clean_close(path: Path) -> None:
    """The file as this process just closed it counts as checked, when it was checked on open.

    The connection passed `quick_check` when it opened and DuckDB wrote and checkpointed the
    file since, so a process that opens the store for every batch (the LLM gateway writes one
    every 0.5 s) pays the metadata read once, not per batch (~35 ms each). A change by anyone
    else after this (another writer, a copy put in its place) changes the identity again.
    """
    with _metadata_lock:
        if path not in _metadata_ok:
            return  # (not checked on open: leave the next open its full check)
        try:
            _metadata_ok[path] = _file_identity(path)
        except OSError:
            _metadata_ok.pop(path, None)


def quick_check(connection: duckdb.DuckDBPyConnection, path: Path, had_wal: bool = False) -> None:
    """Raise `StoreDamaged` when the just-opened store is truncated or its metadata unreadable.

    Every call compares the file size with the blocks in use — unless a write-ahead
    log was replayed on this open (`had_wal`): replayed changes may hold blocks not yet in the
    file, so then the metadata read below decides. That read (every table's storage metadata,
    its persistent blocks inside the file) runs on the first open in this process, after the
    file changed, and after a WAL replay.
    """
    try:
        block_size, used_blocks = connection.execute(
            "SELECT block_size, used_blocks FROM pragma_database_size()"
            " WHERE database_name = current_database()"
        ).fetchone()
        block_size = int(block_size)
        problem = None if had_wal else _size_problem(path, block_size, int(used_blocks))
        identity = _file_identity(path)
        if problem is None and (had_wal or _metadata_ok.get(path) != identity):
            problem = _metadata_problem(connection, path, block_size)
            if problem is None:
                with _metadata_lock:
                    _metadata_ok[path] = identity
    except duckdb.Error as exc:
        problem = str(exc).splitlines()[0]
    if problem is not None:
        with _metadata_lock:
            _metadata_ok.pop(path, None)
        raise StoreDamaged(f"store {path} is damaged: {problem}; {RECOVERY}")


def _read_every_column(cursor: duckdb.DuckDBPyConnection, table: str) -> int:
    """Scan all of `table` (every column's blocks, so DuckDB checks their checksums)."""
    reader = cursor.sql(f'SELECT * FROM "{table}"').to_arrow_reader(65536)
    return sum(batch.num_rows for batch in reader)


def full_check(cursor: duckdb.DuckDBPyConnection) -> list[TableCheck]:
    """Read every table of the store in full; one `TableCheck` per table."""
    results = []
    for table in _user_tables(cursor):
        try:
            results.append(TableCheck(table, _read_every_column(cursor, table)))
        except (duckdb.Error, OSError) as exc:  # through Arrow, DuckDB errors arrive as OSError
            results.append(TableCheck(table, None, str(exc).splitlines()[0]))
    return results


def backup(cursor: duckdb.DuckDBPyConnection, destination: Path) -> None:
    """Write a consistent copy of the store to `destination` (a new file)."""
    if destination.exists():
        raise StoreProblem(f"{destination} exists already: give the path of a new file")
    destination.parent.mkdir(parents=True, exist_ok=True)
    alias = "storyscope_backup"
    # READ_WRITE: an ATTACH from a read-only connection (a newer or read-only store) is
    # read-only by default, and the copy is a new file
    cursor.execute(f"ATTACH ? AS {alias} (READ_WRITE)", [str(destination)])
    try:
        source = cursor.execute("SELECT current_database()").fetchone()[0]
        cursor.execute(f'COPY FROM DATABASE "{source}" TO {alias}')
    finally:
        cursor.execute(f"DETACH {alias}")
