"""The reader of each format: `READERS[format](path, options) -> OpenedResults`.

Each reader follows its harness's writer code (cited in its module), registers itself against
its format's entry (data_access/importers/results/formats.py) with `@register_reader`, and
imports the harness's own library, when it needs one, only when called (`inspect_ai`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from data_access.importers.results.formats import FORMAT_NAMES, ResultsFormat
from data_access.importers.results.samples import OpenedResults
from pipelines.results.options import ReadOptions

Reader = Callable[[Path, ReadOptions], OpenedResults]
READERS: dict[str, Reader] = {}


def register_reader(spec: ResultsFormat) -> Callable[[Reader], Reader]:
    """Make the decorated function the reader of `spec` (one reader per format)."""

    def register(reader: Reader) -> Reader:
        if spec.name in READERS:
            raise RuntimeError(f"format {spec.name} has two readers")
        READERS[spec.name] = reader
        return reader

    return register


def load_readers() -> None:
    """Import every reader module (each registers itself) and check none is missing."""
    from pipelines.results import (  # noqa: F401 -- imported for their registrations
        harness_samples,
        inspect_log,
        openai_batch,
        table,
        vlmevalkit,
    )

    missing = [name for name in FORMAT_NAMES if name not in READERS]
    if missing:
        raise RuntimeError(f"formats without a reader: {', '.join(missing)}")


FORMATS = FORMAT_NAMES
