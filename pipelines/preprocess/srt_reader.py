"""A tolerant SubRip (.srt) reader.

Real subtitle files are messy: UTF-8 with or without BOM, Latin-1/CP1252 (e.g. robertjvt's
`birthday_girl.srt`), missing blank lines between cues, wrong or missing cue numbers,
overlapping cues. The `srt` package rejects many of these, so blocks are found by their timing
lines here and `srt` converts the timestamps. A block whose timing cannot be read is an error
naming its line; it is skipped only in lenient mode.

Times that cannot be right are bad cues too (docs/FORMAT.md, "Subtitle times"):
- a clock field out of range (`99:99:99,999`: minutes and seconds must be below 60);
- a cue that jumps back in time: it starts more than `JUMP_BACK_TOLERANCE_S` before a cue
  earlier in the file (small overlaps and reorderings are kept; the real subtitle files under
  ../shared/data have none);
- a file whose cues mostly run backwards is reported as reversed, in either mode, rather than
  left for the alignment to call "the wrong film's subtitles";
- a file whose cues all start at one time (a converter that lost the timings) is refused in
  either mode: it has no timeline to align, and every line would land on one instant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import srt
from charset_normalizer import from_bytes

TIMING_RE = re.compile(
    r"^\s*(\d{1,2}:\d{1,2}:\d{1,2}[,.:]\d{1,3})\s*-{1,2}>\s*(\d{1,2}:\d{1,2}:\d{1,2}[,.:]\d{1,3})"
)
BROKEN_TIMING_RE = re.compile(r"-->|\d+:\d+:\d+")
NUMBER_RE = re.compile(r"^\s*\d+\s*$")
MARKUP_RE = re.compile(r"<[^>]+>|\{\\[^}]*\}")


JUMP_BACK_TOLERANCE_S = 1.0
REVERSED_SHARE = 0.5  # a file is reversed when more than this share of cue pairs runs backwards


class SubtitleError(ValueError):
    """A subtitle file (or one cue of it) could not be read."""


@dataclass
class Cue:
    """One subtitle cue; `index` is its 0-based order in the file."""

    index: int
    start_s: float
    end_s: float
    text: str
    line: int  # 1-based line of the timing line
    number: str | None = None  # the cue number as written, if any


@dataclass
class SubtitleFile:
    cues: list[Cue]
    encoding: str
    skipped: list[str] = field(default_factory=list)  # "line N: reason" in lenient mode
    overlaps: int = 0


def decode_text(data: bytes, source: str = "<bytes>") -> tuple[str, str]:
    """Bytes -> (text, encoding): UTF-8 (BOM or not) first, then charset-normalizer's guess."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SubtitleError(f"{source}: binary data, not a text file")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        encoding = _guess_legacy_encoding(data)
        return data.decode(encoding, errors="replace"), encoding


def _guess_legacy_encoding(data: bytes) -> str:
    """charset-normalizer's best guess; on a tie, prefer CP1252 (Western subtitles dominate)."""
    matches = list(from_bytes(data))
    if not matches:
        return "cp1252"
    best = matches[0]
    tied = [m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    for preferred in ("cp1252", "latin_1", "iso8859_15"):
        if preferred in tied:
            return preferred
    return best.encoding


def _seconds(stamp: str) -> float:
    """'0:00:01.5' -> 1.5: the fraction is decimal (right-padded to milliseconds), then `srt`
    converts the canonical form."""
    head, fraction = re.match(r"^(.*)[,.:](\d{1,3})$", stamp.strip()).groups()
    _hours, minutes, seconds = (int(part) for part in head.split(":"))
    if minutes > 59 or seconds > 59:
        raise ValueError(f"{stamp}: minutes and seconds must be below 60")
    return srt.srt_timestamp_to_timedelta(f"{head},{fraction.ljust(3, '0')}").total_seconds()


def parse_srt(text: str, source: str = "<text>", lenient: bool = False) -> SubtitleFile:
    """Parse SRT text into cues.

    Args:
        text: decoded file contents.
        source: file name used in error messages.
        lenient: skip unreadable cues (recorded in `skipped`) instead of raising.

    Raises:
        SubtitleError: naming the file and line of the first unreadable cue (strict mode), or
            when no cue at all can be read.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").split("\n")
    cues: list[Cue] = []
    skipped: list[str] = []
    current: Cue | None = None
    for number, line in enumerate(lines, 1):
        timing = TIMING_RE.match(line)
        if timing:
            current = _start_cue(cues, lines, number, timing, source, lenient, skipped)
            continue
        stripped = line.strip()
        if not stripped:
            current = None
            continue
        if current is None:
            if NUMBER_RE.match(line) or _is_number_before_timing(lines, number):
                continue
            problem = f"line {number}: text outside any cue ({stripped[:40]!r})"
            if BROKEN_TIMING_RE.search(stripped):
                problem = f"line {number}: unreadable timing {stripped[:60]!r}"
            _report(problem, source, lenient, skipped)
            continue
        if NUMBER_RE.match(line) and number < len(lines) and TIMING_RE.match(lines[number]):
            current = None  # a missing blank line: this is the next cue's number
            continue
        cleaned = MARKUP_RE.sub("", stripped).strip()
        current.text = f"{current.text} {cleaned}".strip() if cleaned else current.text
    if not cues:
        raise SubtitleError(f"{source}: no subtitle cue could be read")
    cues = _drop_jumps_back(cues, source, lenient, skipped)
    overlaps = sum(1 for a, b in zip(cues, cues[1:]) if b.start_s < a.end_s - 0.001)
    return SubtitleFile(cues, "", skipped, overlaps)


def _check_has_a_timeline(cues: list[Cue], source: str) -> None:
    starts = {cue.start_s for cue in cues}
    if len(cues) >= 2 and len(starts) == 1:
        raise SubtitleError(
            f"{source}: all {len(cues)} cues start at {cues[0].start_s:.3f} s: the file's"
            " timings are lost; use a copy with the real cue times"
        )


def _check_not_reversed(cues: list[Cue], source: str) -> None:
    backwards = sum(1 for a, b in zip(cues, cues[1:]) if b.start_s < a.start_s)
    if len(cues) >= 3 and backwards > REVERSED_SHARE * (len(cues) - 1):
        raise SubtitleError(
            f"{source}: the cues run backwards in time ({backwards} of {len(cues) - 1} steps"
            " go back): the file is reversed; restore its original order"
        )


def _drop_jumps_back(cues: list[Cue], source: str, lenient: bool, skipped: list[str]) -> list[Cue]:
    """Cues in file order without those that jump back in time (an error in strict mode)."""
    _check_has_a_timeline(cues, source)
    _check_not_reversed(cues, source)
    kept: list[Cue] = []
    latest = float("-inf")
    for cue in cues:
        if cue.start_s < latest - JUMP_BACK_TOLERANCE_S:
            _report(
                f"line {cue.line}: cue jumps back in time (starts at {cue.start_s:.3f} s, after"
                f" a cue at {latest:.3f} s)",
                source,
                lenient,
                skipped,
            )
            continue
        latest = max(latest, cue.start_s)
        cue.index = len(kept)
        kept.append(cue)
    return kept


def _is_number_before_timing(lines: list[str], number: int) -> bool:
    return number < len(lines) and bool(TIMING_RE.match(lines[number]))


def _report(problem: str, source: str, lenient: bool, skipped: list[str]) -> None:
    if not lenient:
        raise SubtitleError(f"{source}: {problem}")
    skipped.append(problem)


def _start_cue(
    cues: list[Cue],
    lines: list[str],
    number: int,
    timing: re.Match,
    source: str,
    lenient: bool,
    skipped: list[str],
) -> Cue | None:
    try:
        start, end = _seconds(timing.group(1)), _seconds(timing.group(2))
    except ValueError:
        _report(
            f"line {number}: unreadable timing {lines[number - 1].strip()[:60]!r}",
            source,
            lenient,
            skipped,
        )
        return None
    if end < start:
        _report(f"line {number}: cue ends before it starts", source, lenient, skipped)
        return None
    previous = lines[number - 2].strip() if number >= 2 else ""
    cue = Cue(len(cues), start, end, "", number, previous if NUMBER_RE.match(previous) else None)
    cues.append(cue)
    return cue


def read_srt(path: Path | str, lenient: bool = False) -> SubtitleFile:
    """Read and parse a subtitle file, detecting its encoding."""
    path = Path(path)
    if not path.is_file():
        raise SubtitleError(f"{path}: no such file")
    data = path.read_bytes()
    if not data.strip():
        raise SubtitleError(f"{path}: the file is empty")
    text, encoding = decode_text(data, str(path))
    parsed = parse_srt(text, str(path), lenient)
    parsed.encoding = encoding
    return parsed
