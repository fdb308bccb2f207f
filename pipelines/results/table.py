"""`table`: any CSV, JSONL or Parquet file of per-sample results, read through a column map.

`--map question_id=COLUMN --map answer=COLUMN` (also `option`, `id`, `error`; see options.py)
names the columns; unmapped fields fall back to columns named like the field (`question_id`
or `mcq_id`; `answer`, `prediction` or `response`; `option`; `id`; `error`). No harness wrote
the file, so the MCQ letter is the `option` column, else a reply that is a bare letter or
`ANSWER: X` (letters.py `plain_letter`), or one of the `--map letters=...` labels. Files are
streamed: CSV rows by the csv module, Parquet by record batches.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_access.importers.errors import fail
from data_access.importers.results import formats
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results import bounded
from pipelines.results.letters import LETTERS, MAPPED_OPTION
from pipelines.results.openai_batch import letter_reader
from pipelines.results.options import ReadOptions
from pipelines.results.readers import register_reader
from pipelines.results.records import as_id, dig, iter_jsonl

SUFFIXES = (".csv", ".jsonl", ".parquet")
DEFAULT_COLUMNS = {
    "question_id": ("question_id", "mcq_id"),
    "answer": ("answer", "prediction", "response"),
    "option": ("option",),
    "id": ("id",),
    "error": ("error",),
}
_PARQUET_BATCH = 10_000


def _rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    if path.suffix == ".jsonl":
        yield from iter_jsonl(path)
    elif path.suffix == ".csv":
        for number, row in bounded.csv_rows(path):
            yield f"row {number}", row
    else:
        import pyarrow.parquet as pq

        try:
            parquet = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow's errors for a damaged or non-Parquet file
            raise fail(path.name, "(file)", "-", f"not a readable Parquet file: {exc}") from None
        number = 0
        for batch in bounded.parquet_batches(parquet, path.name, _PARQUET_BATCH):
            for row in batch.to_pylist():
                number += 1
                yield f"row {number}", row


def _columns(header: dict, options: ReadOptions, label: str) -> dict[str, str | None]:
    """field -> the column it is read from (None: the file has none)."""
    chosen: dict[str, str | None] = {}
    for field, candidates in DEFAULT_COLUMNS.items():
        mapped = options.mapped(field)
        if mapped is not None and dig(header, mapped) is None and mapped not in header:
            raise fail(label, "row 1", mapped, f"missing (mapped to {field} by --map)")
        chosen[field] = mapped or next((c for c in candidates if c in header), None)
    if chosen["question_id"] is None:
        raise fail(label, "row 1", "question_id", "no such column: give --map question_id=COLUMN")
    if chosen["answer"] is None and chosen["option"] is None:
        raise fail(label, "row 1", "answer", "no such column: give --map answer=COLUMN")
    return chosen


def _samples(path: Path, columns: dict[str, str | None], options) -> Iterator[ResultSample]:
    rule, letter_of = letter_reader(options)

    def value(row: dict, field: str) -> Any:
        column = columns[field]
        return dig(row, column) if column else None

    for record, row in _rows(path):
        text = value(row, "answer")
        text = None if text is None else str(text)
        option = as_id(value(row, "option"))
        option = option.upper() if option and option.upper() in LETTERS else None
        link = as_id(value(row, "question_id"))
        how = MAPPED_OPTION if option else (rule if text else None)
        yield ResultSample(
            record,
            as_id(value(row, "id")) or link or record,
            link,
            text,
            option or (letter_of(text) if text else None),
            as_id(value(row, "error")),
            None,
            how,
        )


@register_reader(formats.TABLE)
def open_table(path: Path, options: ReadOptions) -> OpenedResults:
    """A CSV / JSONL / Parquet file of results, its columns named by `options.column_map`."""
    if path.suffix not in SUFFIXES:
        raise fail(path.name, "(file)", "-", f"a table is one of {', '.join(SUFFIXES)}")
    first = next(_rows(path), None)
    if first is None:
        raise fail(path.name, "(file)", "-", "no rows")
    columns = _columns(first[1], options, path.name)
    if path.suffix == ".parquet":
        bounded.refuse_binary_columns(path, [c for c in columns.values() if c])
    return OpenedResults(
        format="table",
        files=[path],
        label=path.name,
        run=HarnessRun("table", task=path.stem),
        samples=_samples(path, columns, options),
        id_field=columns["id"] or columns["question_id"],
        link_field=columns["question_id"],
    )
