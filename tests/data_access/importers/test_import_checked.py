"""The checked insert (data_access/importers/checked_insert.py) and the explaining path agree:
clean data never reaches the explaining path and both write the same rows; every bad record the
explaining path names is refused by the checked insert first, and the store is left as it was."""

from __future__ import annotations

import copy
import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.formats.mcq_records import McqPrediction
from data_access.formats.table_files import TABLE_FILES
from data_access.importers import ImportFailure, import_lfvqa_dir, lfvqa
from data_access.importers.checked_insert import Refused
from data_access.importers.fields import field_specs
from data_access.importers.staging import StagedFile
from data_access.importers.staging_jsonl import jsonl_select
from data_access.store import Store
from tests.support.lfvqa_dataset import MCQ, tiny_tables, write_dataset
from tests.support.store_files import store_copy
from tests.support.store_snapshots import other_tables, store_dump


@pytest.fixture
def paths(monkeypatch) -> dict[str, list]:
    """Which path wrote each table file: `checked` (with what it raised) and `explaining`."""
    taken: dict[str, list] = {"checked": [], "explaining": []}
    checked, explaining = lfvqa.checked_table_file, lfvqa.import_table_file

    def spy_checked(cursor, spec, path, *args):
        try:
            return checked(cursor, spec, path, *args)
        except (Refused, ImportFailure) as exc:
            taken["checked"].append((path.name, type(exc).__name__))
            raise

    def spy_explaining(cursor, spec, path, *args):
        taken["explaining"].append(path.name)
        return explaining(cursor, spec, path, *args)

    monkeypatch.setattr(lfvqa, "checked_table_file", spy_checked)
    monkeypatch.setattr(lfvqa, "import_table_file", spy_explaining)
    return taken


@pytest.fixture
def other_seeded(store_path, seeded_template) -> Store:
    """A store already holding the second dataset, so 'left as it was' compares real content."""
    template = seeded_template(
        "other-seeded",
        lambda store, folder: import_lfvqa_dir(
            store, write_dataset(folder / "seed", other_tables())
        ),
    )
    return store_copy(template, store_path)


def full_tables() -> dict[str, list[dict]]:
    """The tiny dataset plus evidence, MCQs and predictions: every kind of check has work."""
    tables = tiny_tables()
    tables["question_evidence"] = [
        {"question_id": "q1", "ord": 0, "time_s": 12.0, "claim_ords": [1, 2]}
    ]
    tables["mcq_questions"] = [MCQ, {**MCQ, "mcq_id": "m2", "option": "B", "gt": "Joey"}]
    tables["mcq_predictions"] = [
        {"mcq_id": "m1", "method": "x", "predicted_option": "A"},
        {"mcq_id": "m2", "method": "x", "predicted_option": "A"},
        {"mcq_id": "m1", "method": "y"},
    ]
    return tables


def as_parquet(folder):
    """Rewrite every JSONL table file of `folder` as Parquet."""
    for path in folder.glob("*.jsonl"):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        pq.write_table(pa.Table.from_pylist(rows), path.with_suffix(".parquet"))
        path.unlink()
    return folder


def data_rows(store: Store) -> dict[str, list]:
    """The import's rows of every table file's store table, without the run that wrote them."""
    with store.session() as cursor:
        return {
            spec.table: cursor.execute(
                f"SELECT * EXCLUDE (run_id) FROM {spec.table} ORDER BY ALL"
            ).fetchall()
            for spec in TABLE_FILES
        }


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_clean_data_never_takes_the_explaining_path(store, tmp_path, paths, fmt):
    folder = write_dataset(tmp_path / "ds", full_tables())
    if fmt == "parquet":
        as_parquet(folder)
    report = import_lfvqa_dir(store, folder)
    assert report.rows["mcq_predictions"] == 3 and report.rows["question_evidence"] == 1
    second = import_lfvqa_dir(store, write_dataset(tmp_path / "second", other_tables()))
    assert second.rows["claim_verdicts"] == 2
    assert paths == {"checked": [], "explaining": []}
    assert not [note for note in report.notes + second.notes if "refused" in note]


def test_both_paths_write_the_same_rows(tmp_path, monkeypatch):
    folder = write_dataset(tmp_path / "ds", full_tables())
    checked = Store(tmp_path / "checked.duckdb")
    import_lfvqa_dir(checked, folder)

    def refuse(cursor, spec, path, *args):
        raise Refused(path.name, "forced by the test")

    monkeypatch.setattr(lfvqa, "checked_table_file", refuse)
    explained = Store(tmp_path / "explained.duckdb")
    report = import_lfvqa_dir(explained, folder)
    assert any("forced by the test" in note for note in report.notes)
    expected = data_rows(explained)
    assert expected["mcq_predictions"] and expected["question_evidence"]
    assert data_rows(checked) == expected


def _set(table: str, index: int, field: str, value):
    def change(tables):
        tables[table][index][field] = value

    return change


def _drop(table: str, index: int, field: str):
    def change(tables):
        del tables[table][index][field]

    return change


def _repeat(table: str, index: int, **changes):
    def change(tables):
        tables[table].append({**copy.deepcopy(tables[table][index]), **changes})

    return change


# Each case breaks one check; the second item is the field the explaining path names.
BAD = {
    "wrong JSON type": (_set("scenes", 0, "start_s", "ten"), "start_s"),
    "wrong list item type": (_set("rubric_claims", 0, "evidence_scenes", ["1"]), "evidence_scenes"),
    "missing required field": (_drop("claim_verdicts", 1, "verdict"), "verdict"),
    "null required field": (_set("questions", 0, "film_id", None), "film_id"),
    "value out of the enum": (_set("claim_verdicts", 0, "verdict", "maybe"), "verdict"),
    "negative time": (_set("scenes", 1, "start_s", -1.0), "start_s"),
    "end before start": (_set("subtitles", 0, "end_s", 0.5), "end_s"),
    "too big for the column": (_set("rubric_claims", 1, "ord", 2**32), "ord"),
    "MCQ rule": (_set("mcq_questions", 1, "option", "E"), "option"),
    "unknown reference": (_set("answers", 0, "question_id", "q404"), "question_id"),
    "unknown MCQ": (_set("mcq_predictions", 2, "mcq_id", "m404"), "mcq_id"),
    "key repeated, store key": (_repeat("settings", 0), "setting_id"),
    "key repeated, no store key": (_repeat("claim_verdicts", 1), "judge_id+answer_id+claim_id"),
    "prediction repeated": (_repeat("mcq_predictions", 0), "mcq_id+method"),
    "unique key repeated": (_set("rubric_claims", 1, "ord", 1), "question_id+ord"),
    "list names an item twice": (_set("question_evidence", 0, "claim_ords", [1, 1]), "claim_ords"),
    "list names an unknown item": (_set("question_evidence", 0, "claim_ords", [3]), "claim_ords"),
}


# a Parquet column has one type: a wrongly typed value is a schema fault there, not a record's
CASES = [
    (case, fmt)
    for case in BAD
    for fmt in ("jsonl", "parquet")
    if fmt == "jsonl" or "wrong" not in case
]


@pytest.mark.parametrize("case, fmt", CASES)
def test_every_bad_record_is_refused_first_and_then_named(other_seeded, tmp_path, paths, case, fmt):
    break_it, field = BAD[case]
    tables = full_tables()
    break_it(tables)
    folder = write_dataset(tmp_path / "ds", tables)
    if fmt == "parquet":
        as_parquet(folder)
    before = store_dump(other_seeded)
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(other_seeded, folder)
    problem = caught.value.first
    assert paths["checked"] == [(problem.file, "Refused")], paths
    assert problem.file in paths["explaining"]
    assert problem.record.startswith("line " if fmt == "jsonl" else "row "), str(problem)
    if field is not None:
        assert problem.field == field, str(problem)
    assert store_dump(other_seeded) == before


def test_keys_already_in_the_store_are_refused_first(store, tmp_path, paths):
    folder = write_dataset(tmp_path / "ds", full_tables())
    import_lfvqa_dir(store, folder)
    before = store_dump(store)
    again = write_dataset(tmp_path / "again", {"claim_verdicts": tiny_tables()["claim_verdicts"]})
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, again)
    assert "already in the store" in caught.value.first.message
    assert paths["checked"] == [("claim_verdicts.jsonl", "Refused")]
    assert store_dump(store) == before


def _predictions_read(tmp_path, predictions: list[dict], joined: bool) -> tuple[str, list]:
    path = tmp_path / "mcq_predictions.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in predictions))
    staged = StagedFile("mcq_predictions", path, "jsonl", "_unused")
    with duckdb.connect() as con:
        select, params = jsonl_select(con, staged, field_specs(McqPrediction), joined=joined)
        plan = con.execute(f"EXPLAIN {select}", params).fetchall()[0][1]
        rows = con.execute(f"{select} ORDER BY ALL", params).fetchall()
    return plan, rows


def test_a_joined_jsonl_read_is_sized_for_the_planner_and_reads_the_same_values(tmp_path):
    # DuckDB sizes a read_json with explicit columns at ~42 rows; the predictions' join then
    # builds its hash table on the whole file. The sniffed read knows the file's size.
    predictions = [
        {"mcq_id": f"m{n}", "method": "x", "predicted_option": "A" if n % 2 else None}
        for n in range(5000)
    ] + [{"mcq_id": "m-odd", "method": "y", "predicted_option": 5}]  # a type fault, flagged
    explicit_plan, explicit = _predictions_read(tmp_path, predictions, joined=False)
    sized_plan, sized = _predictions_read(tmp_path, predictions, joined=True)
    assert sized == explicit and sum(row[-1] for row in sized) == 1  # the one `_type_fault`
    assert "~42 rows" in explicit_plan and "~42 rows" not in sized_plan


def test_a_field_the_sniffer_never_meets_keeps_the_explicit_read(tmp_path):
    predictions = [{"mcq_id": f"m{n}", "method": "x"} for n in range(10)]
    plan, rows = _predictions_read(tmp_path, predictions, joined=True)
    assert "~42 rows" in plan and len(rows) == 10
    assert all(row[2] is None for row in rows)  # predicted_option: absent, so NULL
