"""The reader of each format: `READERS[format](path, options) -> OpenedResults`, filled as the
reader modules are imported (`pipelines.results.api` imports them all and checks none is
missing; this module imports none, so the registry has no import cycle).

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


FORMATS = FORMAT_NAMES
