"""Reading a results file without letting the file decide how much we hold.

Every results reader opens its input through here, so one set of bounds holds for all of them
(docs/FORMAT.md, "Bring your results", "Bounds"):

- Only regular files are read: a device (`/dev/zero`), FIFO or socket is refused unread, since
  it can be endless or block forever (`refuse_unreadable`, `check_input`).
- A zip (an inspect `.eval` log, an `.xlsx` workbook) is refused before any member is read when
  a member would expand past `MAX_MEMBER_BYTES`, all members past `MAX_EXPANDED_BYTES`, or a
  large member more than `MAX_RATIO` times its compressed size (a zip bomb: 1.6 MB that
  expands to 1.5 GB). Python's `zipfile`, which inspect_ai and openpyxl read with, stops a member
  at the size its directory declares, so checking the declared sizes bounds what is inflated.
- A file read whole (a results summary, an inspect `.json` log) is at most
  `MAX_WHOLE_FILE_BYTES`; a record (a JSONL line, a CSV row) at most `MAX_RECORD_BYTES`, read so
  that a file without a newline is never pulled into memory whole.
- JSON nests at most `json_files.MAX_DEPTH` levels (Python's reader dies of `RecursionError`
  on deeper values), read as the harnesses write it (`NaN` accepted: their metrics hold it).
- CSV / TSV text is UTF-8 (a UTF-16 or Latin-1 file is refused naming the row and column), has
  no NUL byte, closes every quote and keeps within csv's field limit.
- A Parquet file is bounded by the uncompressed sizes its metadata declares.

Each fault is an `ImportFailure` naming file, record and field.
"""

from __future__ import annotations

import csv
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from data_access.importers.errors import ImportFailure, fail
from data_access.importers.folder_files import unreadable_problem
from data_access.importers.json_files import check_depth

MIB = 1 << 20
# One zip member expanded: an inspect sample (its messages, attachments) or header, a sheet.
MAX_MEMBER_BYTES = 256 * MIB
# All members of one zip expanded: a 100k-sample inspect log of ~20 kB samples is 2 GB.
MAX_EXPANDED_BYTES = 4096 * MIB
# Expanded / compressed size of a member over RATIO_FLOOR_BYTES: JSON and sheet XML deflate
# 5-20 times; a bomb of repeated bytes ~1000 times.
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 1 * MIB
MAX_MEMBERS = 1_000_000
# A file read whole: a harness's results summary, an inspect `.json` log.
MAX_WHOLE_FILE_BYTES = 512 * MIB
# One record: a JSONL line, a CSV / TSV row.
MAX_RECORD_BYTES = 64 * MIB
# The suffixes of files a results reader may open in a folder it is given.
RESULT_SUFFIXES = (".jsonl", ".json", ".eval", ".xlsx", ".tsv", ".csv", ".parquet")
_ZIP_SUFFIXES = (".eval", ".xlsx")


def _mb(size: int) -> str:
    return f"{size / MIB:,.0f} MB" if size >= MIB else f"{size:,} bytes"


def _printable(name: str) -> str:
    """A member name from the file, shown as text (control characters escaped, cut short)."""
    text = name.encode("unicode_escape").decode("ascii")
    return text if len(text) <= 120 else text[:117] + "..."


def refuse_unreadable(path: Path, label: str | None = None) -> None:
    """Refuse a path that is not a readable regular file (a device, FIFO, folder...) unread."""
    problem = unreadable_problem(path, label or path.name)
    if problem is not None:
        raise ImportFailure([problem])


def check_zip(path: Path, label: str) -> None:
    """Refuse a zip whose members would expand past the bounds, before reading any of them.

    A file that is not a readable zip passes: its reader says why it cannot read it.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return
    if len(members) > MAX_MEMBERS:
        raise fail(label, "(file)", "-", f"{len(members):,} zip members (at most {MAX_MEMBERS:,})")
    total = 0
    for member in members:
        where = f"member {_printable(member.filename)}"
        size, packed = member.file_size, member.compress_size
        if size > MAX_MEMBER_BYTES:
            raise fail(
                label,
                where,
                "-",
                f"expands to {_mb(size)}, over the {_mb(MAX_MEMBER_BYTES)} a member may hold:"
                " refused unread",
            )
        if size > RATIO_FLOOR_BYTES and size > MAX_RATIO * max(packed, 1):
            raise fail(
                label,
                where,
                "-",
                f"expands {size / max(packed, 1):,.0f} times ({_mb(packed)} to {_mb(size)}),"
                f" over the {MAX_RATIO} times a results file may (a zip bomb?): refused unread",
            )
        total += size
        if total > MAX_EXPANDED_BYTES:
            raise fail(
                label,
                where,
                "-",
                f"the members expand to more than {_mb(MAX_EXPANDED_BYTES)} together: refused"
                " unread",
            )


def check_whole_size(path: Path, label: str, limit: int = MAX_WHOLE_FILE_BYTES) -> None:
    """Refuse a file read whole (one JSON document) that is larger than `limit`."""
    size = path.stat().st_size
    if size > limit:
        raise fail(
            label,
            "(file)",
            "-",
            f"{_mb(size)}, over the {_mb(limit)} a file read whole may be (a `.json` inspect"
            " log: convert it to `.eval` with `inspect log convert`)",
        )


def parquet_batches(parquet, label: str, batch_size: int) -> Iterator:
    """The record batches of an open `pyarrow.parquet.ParquetFile`, refused before reading when
    its row groups declare more than the bounds uncompressed (`check_parquet`), and while
    reading when the decoded batches hold more (dictionary encoding declares a repeated value
    once)."""
    check_parquet(parquet, label)
    total = 0
    for index, batch in enumerate(parquet.iter_batches(batch_size=batch_size)):
        total += batch.nbytes
        if batch.nbytes > MAX_MEMBER_BYTES or total > MAX_EXPANDED_BYTES:
            raise fail(
                label,
                f"rows {index * batch_size + 1}-{index * batch_size + batch.num_rows}",
                "-",
                f"decode to {_mb(total)}, over the bounds of a results file",
            )
        yield batch


def check_parquet(parquet, label: str) -> None:
    """Refuse a Parquet file whose row groups declare more than `MAX_EXPANDED_BYTES`
    uncompressed, or a row group more than `MAX_MEMBER_BYTES` (one is read at a time)."""
    meta = parquet.metadata
    total = 0
    for index in range(meta.num_row_groups):
        size = meta.row_group(index).total_byte_size
        total += size
        if size > MAX_MEMBER_BYTES or total > MAX_EXPANDED_BYTES:
            raise fail(
                label,
                f"row group {index + 1}",
                "-",
                f"expands to {_mb(size)} ({_mb(total)} so far), over the bounds of a results"
                " file: refused unread",
            )


def _check_file(path: Path, label: str) -> None:
    refuse_unreadable(path, label if path.is_file() else str(path))
    suffix = path.suffix.lower()
    if suffix in _ZIP_SUFFIXES:
        check_zip(path, label)
    elif suffix == ".json":
        check_whole_size(path, label)


def check_input(path: Path, batch_input: Path | None = None) -> None:
    """Refuse, before any reading, an input no reader may open: what is not a regular file, a
    zip that expands past the bounds, a whole-read file too large; for a folder, each file in
    it a reader may open."""
    if path.is_dir():
        for entry in sorted(path.iterdir()):
            if not entry.name.startswith(".") and entry.suffix.lower() in RESULT_SUFFIXES:
                _check_file(entry, f"{path.name}/{entry.name}")
    else:
        _check_file(path, path.name)
    if batch_input is not None:
        if not batch_input.exists() and not batch_input.is_symlink():
            raise fail(str(batch_input), "(file)", "-", "--batch-input: no such file")
        refuse_unreadable(batch_input, str(batch_input))


# -- records ---------------------------------------------------------------------------------
def lines(handle: IO[bytes], label: str) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) of a binary file, each line at most `MAX_RECORD_BYTES`."""
    number = 0
    while True:
        raw = handle.readline(MAX_RECORD_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_RECORD_BYTES:
            raise fail(
                label,
                f"line {number}",
                "-",
                f"longer than {_mb(MAX_RECORD_BYTES)} (a record may hold at most that; is it a"
                " text file of records?)",
            )
        yield number, raw


def loads_record(text: str, label: str, record: str) -> Any:
    """One JSON value as the harnesses write it (Python's `json`: NaN accepted), at most
    `json_files.MAX_DEPTH` levels deep."""
    check_depth(text, label, record)
    try:
        return json.loads(text)
    except RecursionError:  # the stack was deep already when we were called
        raise fail(label, record, "-", "nested too deep for this reader: flatten it") from None


def read_whole(path: Path, label: str) -> bytes:
    """A file read whole, refused past `MAX_WHOLE_FILE_BYTES` (and when it is no file)."""
    refuse_unreadable(path, label)
    # read what the file holds (+1 to see one that grows), never `MAX + 1` at once: a buffered
    # read allocates the size asked for before reading, so a 2-kB summary cost 512 MB
    wanted = min(path.stat().st_size, MAX_WHOLE_FILE_BYTES) + 1
    with path.open("rb") as handle:
        data = handle.read(wanted)
        while len(data) == wanted and len(data) <= MAX_WHOLE_FILE_BYTES:  # it grew: read on
            more = handle.read(MIB)
            if not more:
                break
            data += more
            wanted = len(data)
    if len(data) > MAX_WHOLE_FILE_BYTES:
        check_whole_size(path, label)
        raise fail(label, "(file)", "-", f"longer than {_mb(MAX_WHOLE_FILE_BYTES)}")
    return data


# -- CSV / TSV --------------------------------------------------------------------------------
class _BadLine(Exception):
    """A physical line of a text table that cannot be text: raised out of the csv reader."""

    def __init__(self, number: int, raw: bytes, why: str):
        super().__init__(why)
        self.number, self.raw, self.why = number, raw, why


def _text_lines(handle: IO[bytes], label: str) -> Iterator[str]:
    for number, raw in lines(handle, label):
        if number == 1 and raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise fail(
                label,
                "(file)",
                "-",
                "text is UTF-16 (it starts with a UTF-16 byte-order mark): re-save the file as"
                " UTF-8",
            )
        if b"\x00" in raw:
            hint = " (UTF-16 text without its byte-order mark?)" if raw.count(b"\x00") > 1 else ""
            raise _BadLine(number, raw, f"a NUL byte in the text{hint}: not a text table")
        try:
            yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise _BadLine(
                number,
                raw,
                f"text is not UTF-8 (byte 0x{raw[exc.start]:02X} at column {exc.start + 1} of"
                " the line; Latin-1 or Windows-1252?): re-save the file as UTF-8",
            ) from None


def _column_of_bad_bytes(raw: bytes, header: list[str] | None, delimiter: str) -> str:
    """The column whose value holds the bytes that are not UTF-8 text (or a NUL), else `-`."""
    text = raw.decode("latin-1").replace("\x00", "\ufffd")
    try:
        fields = next(csv.reader([text], delimiter=delimiter), [])
    except csv.Error:
        return "-"
    for index, value in enumerate(fields):
        encoded = value.encode("latin-1", errors="replace")
        bad = "\ufffd" in value
        if not bad:
            try:
                encoded.decode("utf-8")
            except UnicodeDecodeError:
                bad = True
        if bad:
            if header is not None and index < len(header):
                return header[index]
            return f"column {index + 1}"
    return "-"


def _csv_message(exc: csv.Error) -> str:
    text = str(exc)
    if "field larger than field limit" in text:
        return (
            f"a field longer than {csv.field_size_limit():,} characters (Python csv's field"
            " limit): is a quote left open?"
        )
    if "unexpected end of data" in text:
        return "a quoted field is never closed (the file ends inside it): close the quote"
    return f"not valid CSV: {text}"


def csv_rows(path: Path, delimiter: str = ",") -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, {column: text}) of a CSV / TSV file, streamed; row 1 is the header.

    Raises:
        ImportFailure: text that is not UTF-8 (naming row and column), a NUL byte, a quote left
            open, a field over csv's limit, a row over `MAX_RECORD_BYTES`.
    """
    label = path.name
    refuse_unreadable(path, label)
    row = 1
    header: list[str] | None = None
    with path.open("rb") as handle:
        reader = csv.DictReader(_text_lines(handle, label), delimiter=delimiter, strict=True)
        try:
            header = list(reader.fieldnames or [])
            for row, values in enumerate(reader, start=2):
                yield row, values
        except _BadLine as bad:
            where = f"row {row + 1}" if header is not None else "row 1"
            field = _column_of_bad_bytes(bad.raw, header, delimiter)
            raise fail(label, where, field, f"{bad.why} (line {bad.number})") from None
        except csv.Error as exc:
            where = f"row {row + 1}" if header is not None else "row 1"
            raise fail(label, where, "-", _csv_message(exc)) from None


# -- sheets and Parquet columns ---------------------------------------------------------------
def sheet_rows(sheet, label: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, {column: value}) of an openpyxl read-only worksheet, streamed; a sheet
    whose XML is damaged or cut short is refused at the row where it breaks."""
    number = 1
    try:
        rows = sheet.iter_rows(values_only=True)
        header = [str(c) if c is not None else "" for c in next(rows, ())]
        for number, values in enumerate(rows, start=2):
            yield number, dict(zip(header, values, strict=False))
    except Exception as exc:  # XML ParseError, zlib / zip errors of a sheet cut short
        text = str(exc).strip().splitlines()
        why = f"{type(exc).__name__}: {text[0][:160]}" if text else type(exc).__name__
        raise fail(
            label,
            f"row {number + 1}",
            "-",
            f"the sheet's XML is damaged or cut short ({why}): re-save the workbook",
        ) from None


def refuse_binary_columns(path: Path, columns: list[str]) -> None:
    """Refuse a Parquet column read as text (answer, ids, option, error) that holds bytes:
    its values would be imported as the text `b'...'`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    for name in columns:
        top = name.split(".")[0]
        if top in schema.names:
            kind = schema.field(top).type
            if (
                pa.types.is_binary(kind)
                or pa.types.is_large_binary(kind)
                or (pa.types.is_fixed_size_binary(kind))
            ):
                raise fail(
                    path.name,
                    "(schema)",
                    name,
                    f"a binary column ({kind}): write it as a string (UTF-8) column",
                )
