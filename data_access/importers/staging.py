"""Stage one table file into a typed temp table, streaming it through DuckDB's own readers.

What both formats share: the stage (`StagedFile`, whose `_row` column numbers the records),
turning DuckDB's record ordinals into the labels a user reads, and dropping the stage. Each
format stages in its own module: `staging_jsonl` (JSON types checked value by value) and
`staging_parquet` (typed already: the schema is checked once, then cast). Python never holds
the file: it only reads lines on the error path, to turn DuckDB's record ordinal into a line
number and to explain a malformed line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
from rapidfuzz import process

from data_access.importers.errors import Problem

ROW = "_row"  # the 1-based record ordinal column of every stage table


@dataclass
class StagedFile:
    """A table file staged as the temp table `stage`, one typed column per model field."""

    name: str
    path: Path
    fmt: str  # jsonl | parquet
    stage: str
    n_rows: int = 0
    is_view: bool = False
    backing: str | None = None  # the temp table behind a JSONL stage view (its rows)

    @property
    def file_label(self) -> str:
        return self.path.name

    def record_labels(self, ordinals: list[int]) -> dict[int, str]:
        """`line N` for JSONL (blank lines counted, as an editor shows them), `row N` for
        Parquet."""
        if self.fmt == "parquet":
            return {n: f"row {n}" for n in ordinals}
        return {n: f"line {line}" for n, line in record_lines(self.path, ordinals).items()}

    def problems(self, faults: list[tuple[int, str, str]]) -> list[Problem]:
        """Problems for (ordinal, field, message) faults, labelled with their records."""
        labels = self.record_labels([ordinal for ordinal, _, _ in faults])
        return [Problem(self.file_label, labels[o], field, message) for o, field, message in faults]


def record_lines(path: Path, ordinals: list[int]) -> dict[int, int]:
    """Map record ordinals (DuckDB skips blank lines) to 1-based file line numbers."""
    wanted = set(ordinals)
    found: dict[int, int] = {}
    ordinal = 0
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            ordinal += 1
            if ordinal in wanted:
                found[ordinal] = line_no
                if len(found) == len(wanted):
                    break
    return found


def closest_hint(name: str, choices: list[str]) -> str:
    """` (did you mean 'x'?)` for the closest of `choices` to a misspelt `name`, or ''."""
    match = process.extractOne(name, choices, score_cutoff=70)
    return f" (did you mean '{match[0]}'?)" if match else ""


def drop_stage(cursor: duckdb.DuckDBPyConnection, staged: StagedFile) -> None:
    """Remove the stage (a temp view, with its rows' temp table for JSONL, or a temp table)."""
    cursor.execute(f"DROP {'VIEW' if staged.is_view else 'TABLE'} IF EXISTS {staged.stage}")
    if staged.backing:
        cursor.execute(f"DROP TABLE IF EXISTS {staged.backing}")
