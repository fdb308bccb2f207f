"""Reading screenplay files: encoding, format choice and the bad-input checks.

A PDF renamed `.txt`, an empty file, binary data or a text without any dialogue is refused with
an error naming the file, before anything reaches the store.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.preprocess.fountain import parse_fountain
from pipelines.preprocess.model import Screenplay
from pipelines.preprocess.screenplay_text import parse_screenplay_text
from pipelines.preprocess.srt_reader import SubtitleError, decode_text

FOUNTAIN_SUFFIXES = {".fountain", ".spmd"}


class ScreenplayError(ValueError):
    """A screenplay file cannot be used (names the file and the reason)."""


def read_text_file(path: Path) -> str:
    """The decoded text of a screenplay file, refusing PDFs, binaries and empty files."""
    if not path.is_file():
        raise ScreenplayError(f"{path}: no such file")
    data = path.read_bytes()
    if not data.strip():
        raise ScreenplayError(f"{path}: the file is empty")
    if data.lstrip()[:5] == b"%PDF-":
        raise ScreenplayError(
            f"{path}: this is a PDF file (renamed {path.suffix or 'without suffix'}); "
            "convert it to plain text first, e.g. `pdftotext -layout`"
        )
    try:
        text, _ = decode_text(data, str(path))
    except SubtitleError as exc:
        raise ScreenplayError(str(exc)) from None
    return text


def parse_screenplay_file(path: Path | str, format: str | None = None) -> Screenplay:
    """Parse a screenplay file (Fountain by suffix or `format="fountain"`, else plain text).

    Raises:
        ScreenplayError: unreadable file, or no scene with dialogue found in it.
    """
    path = Path(path)
    text = read_text_file(path)
    use_fountain = format == "fountain" or (
        format is None and path.suffix.lower() in FOUNTAIN_SUFFIXES
    )
    screenplay = parse_fountain(text) if use_fountain else parse_screenplay_text(text)
    if not screenplay.scenes or screenplay.dialogue_count == 0:
        raise ScreenplayError(f"{path}: no scene with dialogue found; is this a screenplay?")
    return screenplay
