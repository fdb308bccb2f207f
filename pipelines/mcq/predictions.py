"""`storyscope mcq import-predictions FILE`: method answers to StoryVideoQA MCQs.

Accepted files: CSV (header row), JSON (a list of objects) or JSON Lines. Each record names the
question (`mcq_id`, or `question_id` / `id`, as "<source>:<vid>:<id>"), the `method`, and the
predicted option letter (`predicted_option`, or `predicted` / `prediction` / `option`): A-E, or
empty for "no answer" (counted wrong). Every record is checked before anything is written; the
first bad one is reported with its file, record number and field, and the store is unchanged.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from data_access.importers.json_files import (
    JsonFileError,
    decode_utf8,
    read_json_file,
    read_json_lines,
)
from data_access.store import Store
from data_access.store.interrupts import telling_interrupts
from data_access.tables.mcq import insert_predictions, mcq_options
from data_access.tables.runs import RunSpec, finish_run, insert_run

ID_FIELDS = ("mcq_id", "question_id", "id")
OPTION_FIELDS = ("predicted_option", "predicted", "prediction", "option")
LETTERS = "ABCDE"


class PredictionsError(ValueError):
    """A predictions file that cannot be imported (message names file, record, field)."""


def read_records(path: Path) -> list[dict]:
    """The file's records as dicts (CSV, JSON list, or JSON Lines)."""
    try:
        if path.suffix.lower() == ".csv":
            text = decode_utf8(path.read_bytes(), str(path))
            return list(csv.DictReader(io.StringIO(text, newline="")))
        if path.suffix.lower() == ".jsonl":
            return [value for _, value in read_json_lines(path, str(path))]
        data = read_json_file(path, str(path))
    except OSError as exc:
        raise PredictionsError(f"{path}: cannot read file ({exc.strerror or exc})") from None
    except JsonFileError as exc:
        raise PredictionsError(str(exc)) from None
    except csv.Error as exc:
        raise PredictionsError(f"{path}: not a readable CSV ({exc})") from None
    if not isinstance(data, list):
        raise PredictionsError(f"{path}: expected a JSON list of prediction objects")
    return data


def _field(record: dict, names: tuple[str, ...], path: Path, number: int, required=True):
    for name in names:
        if name in record and record[name] is not None:
            return str(record[name]).strip()
    if required:
        raise PredictionsError(f"{path}: record {number}: missing field '{names[0]}'")
    return ""


def validate(records: list, path: Path, options: dict[str, str]) -> list[tuple]:
    """(mcq_id, method, predicted_option, correct) rows, or PredictionsError on the first bad
    one."""
    rows, seen = [], set()
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise PredictionsError(f"{path}: record {number}: expected an object")
        mcq_id = _field(record, ID_FIELDS, path, number)
        method = _field(record, ("method",), path, number)
        predicted = _field(record, OPTION_FIELDS, path, number, required=False).upper()
        if mcq_id not in options:
            raise PredictionsError(
                f"{path}: record {number}: field 'mcq_id': unknown question '{mcq_id}'"
            )
        if not method:
            raise PredictionsError(f"{path}: record {number}: field 'method' is empty")
        if predicted and (len(predicted) != 1 or predicted not in LETTERS):
            raise PredictionsError(
                f"{path}: record {number}: field 'predicted_option': "
                f"'{predicted}' is not one of A-E"
            )
        if (mcq_id, method) in seen:
            raise PredictionsError(
                f"{path}: record {number}: duplicate prediction for '{mcq_id}' by '{method}'"
            )
        seen.add((mcq_id, method))
        rows.append((mcq_id, method, predicted or None, predicted == options[mcq_id].upper()))
    return rows


def import_predictions(store: Store, path: Path) -> dict:
    """Validate and write a predictions file in one transaction; return counts per method."""
    records = read_records(path)
    told = telling_interrupts(store, "mcq.predictions", str(path), f"the import of {path}")
    with told, store.transaction() as cursor:
        rows = validate(records, path, mcq_options(cursor))
        run_id = insert_run(
            cursor, RunSpec(step="mcq.predictions", backend="import", source=str(path))
        )
        insert_predictions(cursor, rows, run_id)
        finish_run(cursor, run_id, n_items=len(rows))
    per_method: dict[str, list[int]] = {}
    for _, method, _, correct in rows:
        per_method.setdefault(method, [0, 0])
        per_method[method][0] += 1
        per_method[method][1] += int(correct)
    return {
        "run_id": run_id,
        "n": len(rows),
        "methods": {
            m: {"n": n, "accuracy": round(100 * c / n, 2)}
            for m, (n, c) in sorted(per_method.items())
        },
    }
