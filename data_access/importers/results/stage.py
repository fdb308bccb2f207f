"""Samples into a temporary stage table, in bounded batches, and the faults the stage shows.

A reader yields samples one at a time; they go to DuckDB as Arrow batches of `BATCH_ROWS`, so a
100k-sample file costs one batch of Python objects at a time, and linking, counting and the insert
are SQL over the stage (data_access owns every statement).
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import pyarrow as pa

from data_access.importers.errors import ImportFailure, Problem, fail
from data_access.importers.results.samples import OpenedResults, ResultSample
from data_access.store import append_table

STAGE = "_results_stage"
BATCH_ROWS = 10_000
_COLUMNS = (
    "record", "sample_id", "link_id", "text", "option", "error", "repeat", "rule", "trail",
)  # fmt: skip
_SCHEMA = pa.schema([("seq", pa.int64())] + [(name, pa.string()) for name in _COLUMNS])


def _append(cursor: duckdb.DuckDBPyConnection, seq0: int, batch: list[ResultSample]) -> None:
    columns = {"seq": list(range(seq0, seq0 + len(batch)))}
    for name in _COLUMNS:
        columns[name] = [getattr(sample, name) for sample in batch]
    append_table(cursor, STAGE, pa.table(columns, schema=_SCHEMA))


def stage_samples(cursor: duckdb.DuckDBPyConnection, samples: Iterable[ResultSample]) -> int:
    """Write `samples` into the stage (a temp table of this transaction); return how many."""
    cursor.execute(
        f"CREATE OR REPLACE TEMP TABLE {STAGE} (seq BIGINT, "
        + ", ".join(f"{name} VARCHAR" for name in _COLUMNS)
        + ")"
    )
    batch: list[ResultSample] = []
    n = 0
    for sample in samples:
        batch.append(sample)
        if len(batch) == BATCH_ROWS:
            _append(cursor, n, batch)
            n += len(batch)
            batch = []
    if batch:
        _append(cursor, n, batch)
        n += len(batch)
    return n


def drop_stage(cursor: duckdb.DuckDBPyConnection) -> None:
    cursor.execute(f"DROP TABLE IF EXISTS {STAGE}")


def _pairs(cursor: duckdb.DuckDBPyConnection, column: str) -> list[tuple[str, str, str]]:
    """(value, first record, second record) of `column` values two first records share."""
    return cursor.execute(
        f"""SELECT {column}, arg_min(record, seq), arg_max(record, seq) FROM (
                SELECT {column}, record, seq, count(*) OVER (PARTITION BY {column}) AS n
                FROM {STAGE} WHERE repeat IS NULL AND {column} IS NOT NULL
            ) WHERE n > 1 GROUP BY {column} ORDER BY min(seq) LIMIT 10"""
    ).fetchall()


def refuse_duplicates(cursor: duckdb.DuckDBPyConnection, opened: OpenedResults) -> None:
    """Two first records of one sample, or two samples naming one question, are a fault of the
    file (the harnesses write each sample once per epoch / filter / repeat, which readers mark).

    Raises:
        ImportFailure: naming the second record and the id field.
    """
    problems = [
        Problem(
            opened.label,
            second,
            opened.id_field,
            f"duplicated sample id {value!r} (first at {first})",
        )
        for value, first, second in _pairs(cursor, "sample_id")
    ]
    if not problems:
        problems = [
            Problem(
                opened.label,
                second,
                opened.link_field,
                f"a second sample for question {value!r} (first at {first}); one answer per"
                f" question and setting{_unique_link_hint(opened)}",
            )
            for value, first, second in _pairs(cursor, "link_id")
        ]
    if problems:
        raise ImportFailure(problems)


def _unique_link_hint(opened: OpenedResults) -> str:
    """How to link on a field that is one per sample, when the link field is not it (MME asks
    two questions of one image under one `question_id`; `doc_id` is one per sample)."""
    if opened.link_field == opened.id_field:
        return ""
    return (
        f". Several samples name one {opened.link_field}: if each sample is its own question,"
        f" link on {opened.id_field} with --map question_id={opened.id_field}"
    )


def refuse_empty(opened: OpenedResults, n_samples: int) -> None:
    """A results file without one sample is not a results file of its format."""
    if n_samples == 0:
        raise fail(opened.label, "(file)", "-", f"no samples: not a {opened.format} results file")
