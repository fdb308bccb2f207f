"""Bad-input corpus for `import_lfvqa_dir`: every case names file, record and field, and leaves
the store exactly as it was (every table's rows compared before and after)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.importers import ImportFailure, import_lfvqa_dir
from tests.support.lfvqa_dataset import MANIFEST, tiny_tables, write_dataset
from tests.support.store_files import store_copy
from tests.support.store_snapshots import assert_rejected, other_tables, store_dump


@pytest.fixture
def seeded(store_path, seeded_template):
    """A store that already holds the tiny dataset, so 'unchanged' compares real content."""
    template = seeded_template(
        "tiny-seeded",
        lambda store, folder: import_lfvqa_dir(
            store, write_dataset(folder / "seed", tiny_tables())
        ),
    )
    return store_copy(template, store_path)


def write_lines(folder: Path, name: str, lines: list[bytes]) -> None:
    (folder / f"{name}.jsonl").write_bytes(b"".join(lines))


def as_line(record: dict) -> bytes:
    return (json.dumps(record) + "\n").encode()


def dataset_with(tmp_path: Path, change) -> Path:
    """The valid second dataset, with `change(tables)` applied before writing."""
    tables = other_tables()
    change(tables)
    return write_dataset(tmp_path / "bad", tables)


def test_the_valid_second_dataset_imports(seeded, tmp_path):
    report = import_lfvqa_dir(seeded, write_dataset(tmp_path / "ok", other_tables()))
    assert report.rows["claim_verdicts"] == 2


def test_truncated_json(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    films = [as_line(r) for r in other_tables()["films"]]
    write_lines(folder, "films", [films[0], films[1][:25]])
    message = assert_rejected(seeded, folder, "films.jsonl", "line 2", "-", "invalid JSON")
    assert "column" in message


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("year", "nineteen", "must be an integer"),
        ("title", 123, "must be a string"),
        ("runtime_s", "600", "must be a number"),
        ("year", 1999.5, "must be an integer"),
    ],
)
def test_wrong_types(seeded, tmp_path, field, value, words):
    folder = dataset_with(tmp_path, lambda t: t["films"][1].update({field: value}))
    assert_rejected(seeded, folder, "films.jsonl", "line 2", field, words)


def test_wrong_list_item_type(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["rubric_claims"][0].update(evidence_scenes=["one"]))
    assert_rejected(
        seeded, folder, "rubric_claims.jsonl", "line 1", "evidence_scenes", "a list of integers"
    )


def test_missing_required_field(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["questions"][0].pop("text"))
    assert_rejected(seeded, folder, "questions.jsonl", "line 1", "text", "missing")


def test_unknown_question_id(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["rubric_claims"][1].update(question_id="q404"))
    assert_rejected(seeded, folder, "rubric_claims.jsonl", "line 2", "question_id", "'q404'")


def test_unknown_claim_id(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["claim_verdicts"][1].update(claim_id="q9.c7"))
    assert_rejected(
        seeded, folder, "claim_verdicts.jsonl", "line 2", "claim_id", "unknown claim_id"
    )


def test_duplicate_id_in_file(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["films"].append(dict(t["films"][0])))
    assert_rejected(seeded, folder, "films.jsonl", "line 3", "film_id", "same as record 1")


def test_duplicate_id_against_store(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["settings"][0].update(setting_id="s1"))
    assert_rejected(
        seeded, folder, "settings.jsonl", "line 1", "setting_id", "already in the store"
    )


def test_negative_time(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["subtitles"][0].update(start_s=-1.0))
    assert_rejected(seeded, folder, "subtitles.jsonl", "line 1", "start_s", "must be ≥ 0")


def test_end_before_start(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["scenes"][2].update(end_s=5.0))
    assert_rejected(seeded, folder, "scenes.jsonl", "line 3", "end_s", "must be ≥ start_s")


def test_latin1_text(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    films = other_tables()["films"]
    films[1]["title"] = "Café"
    lines = [as_line(films[0]), json.dumps(films[1], ensure_ascii=False).encode("latin-1") + b"\n"]
    write_lines(folder, "films", lines)
    assert_rejected(seeded, folder, "films.jsonl", "line 2", "title", "not UTF-8")


def test_byte_order_mark_inside_the_file(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    scenes = [as_line(r) for r in other_tables()["scenes"]]
    write_lines(
        folder, "scenes", [b"\xef\xbb\xbf" + scenes[0], scenes[1], b"\xef\xbb\xbf" + scenes[2]]
    )
    assert_rejected(seeded, folder, "scenes.jsonl", "line 3", "-", "byte-order mark")


def test_byte_order_mark_at_the_start_is_accepted(seeded, tmp_path):
    # RFC 8259 §8.1 lets a parser ignore a leading BOM; Windows tools write one.
    folder = dataset_with(tmp_path, lambda t: None)
    films = [as_line(r) for r in other_tables()["films"]]
    write_lines(folder, "films", [b"\xef\xbb\xbf" + films[0], films[1]])
    (folder / "manifest.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(MANIFEST).encode())
    assert import_lfvqa_dir(seeded, folder).rows["films"] == 2


def test_empty_file(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    write_lines(folder, "scenes", [])
    assert_rejected(seeded, folder, "scenes.jsonl", "(file)", "-", "empty")


def test_blank_lines_only_file_is_empty(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    write_lines(folder, "scenes", [b"\n", b"  \n"])
    assert_rejected(seeded, folder, "scenes.jsonl", "(file)", "-", "empty")


def test_unknown_field(seeded, tmp_path):
    def typo(tables):
        tables["films"][0]["titel"] = tables["films"][0].pop("title")

    message = assert_rejected(
        seeded, dataset_with(tmp_path, typo), "films.jsonl", "line 1", "titel", "unknown field"
    )
    assert "did you mean 'title'" in message


def test_bad_enum(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: t["questions"][0].update(qtype="Q9"))
    assert_rejected(seeded, folder, "questions.jsonl", "line 1", "qtype", "must be one of 'Q1'")


def test_list_too_short(seeded, tmp_path):
    mcq = {
        "mcq_id": "m1",
        "source": "Friends",
        "vid": "v",
        "question": "Who?",
        "choices": ["Ross"],
        "gt": "Ross",
        "option": "A",
    }
    folder = dataset_with(tmp_path, lambda t: t.update(mcq_questions=[mcq]))
    assert_rejected(seeded, folder, "mcq_questions.jsonl", "line 1", "choices", "at least 2 items")


def test_record_that_is_not_an_object(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    write_lines(folder, "judges", [b'["j9", "lexical"]\n'])
    assert_rejected(seeded, folder, "judges.jsonl", "line 1", "-", "not a JSON object")


def test_line_numbers_count_blank_lines(seeded, tmp_path):
    folder = dataset_with(tmp_path, lambda t: None)
    films = other_tables()["films"]
    films[1]["year"] = 1200
    write_lines(folder, "films", [as_line(films[0]), b"\n", b"\n", as_line(films[1])])
    assert_rejected(seeded, folder, "films.jsonl", "line 4", "year", "must be ≥ 1880 (got 1200)")


@pytest.mark.parametrize(
    "manifest, field, words",
    [
        ({**MANIFEST, "version": 2}, "version", "Input should be 1"),
        ({k: v for k, v in MANIFEST.items() if k != "dataset_id"}, "dataset_id", "Field required"),
        ({**MANIFEST, "licence_": "x"}, "licence_", "Extra inputs are not permitted"),
    ],
)
def test_bad_manifest(seeded, tmp_path, manifest, field, words):
    folder = write_dataset(tmp_path / "bad", other_tables(), manifest)
    assert_rejected(seeded, folder, "manifest.json", "(manifest)", field, words)


def test_missing_manifest(seeded, tmp_path):
    folder = write_dataset(tmp_path / "bad", other_tables())
    (folder / "manifest.json").unlink()
    assert_rejected(seeded, folder, "manifest.json", "(file)", "-", "missing")


def test_unknown_table_file(seeded, tmp_path):
    folder = write_dataset(tmp_path / "bad", other_tables())
    (folder / "films.jsonl").rename(folder / "film.jsonl")
    assert_rejected(seeded, folder, "film.jsonl", "(file)", "-", "not a table of the format")


def test_failure_in_a_later_file_rolls_back_the_earlier_ones(seeded, tmp_path):
    # films, scenes, questions ... pass and are inserted inside the transaction first
    folder = dataset_with(tmp_path, lambda t: t["claim_verdicts"][0].update(verdict="maybe"))
    assert_rejected(seeded, folder, "claim_verdicts.jsonl", "line 1", "verdict", "(got maybe)")


def test_parquet_column_of_the_wrong_type(seeded, tmp_path):
    folder = write_dataset(tmp_path / "bad", {})
    films = other_tables()["films"]
    for film in films:
        film["year"] = str(film.get("year"))
    pq.write_table(pa.Table.from_pylist(films), folder / "films.parquet")
    assert_rejected(seeded, folder, "films.parquet", "(schema)", "year", "must be an integer")


def test_parquet_row_is_named_by_row_number(seeded, tmp_path):
    folder = write_dataset(tmp_path / "bad", {})
    films = other_tables()["films"]
    films[1]["runtime_s"] = -5.0
    pq.write_table(pa.Table.from_pylist(films), folder / "films.parquet")
    assert_rejected(seeded, folder, "films.parquet", "row 2", "runtime_s", "must be > 0")


@pytest.mark.slow
def test_200_mb_file_is_streamed_not_loaded(seeded, tmp_path):
    """A ~200 MB films.jsonl whose last record is bad: DuckDB streams it, Python only walks
    lines on the error path, so the Python heap stays far below the file size."""
    folder = write_dataset(tmp_path / "big", {})
    padding = "x" * 2000
    n_rows = 100_000
    with (folder / "films.jsonl").open("w") as handle:
        for i in range(n_rows - 1):
            handle.write(f'{{"film_id": "big{i}", "title": "T", "source": "{padding}"}}\n')
        handle.write(
            f'{{"film_id": "last", "title": "T", "year": "1999", "source": "{padding}"}}\n'
        )
    size = (folder / "films.jsonl").stat().st_size
    assert size > 200_000_000
    before = store_dump(seeded)
    tracemalloc.start()
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(seeded, folder)
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    problem = caught.value.first
    assert (problem.file, problem.record, problem.field) == (
        "films.jsonl",
        f"line {n_rows}",
        "year",
    )
    assert python_peak < size / 20, f"Python heap peaked at {python_peak:,} bytes"
    assert store_dump(seeded) == before


def test_two_judges_on_one_claim_in_one_import_are_both_kept(seeded, tmp_path):
    # Migration 30: verdicts are unique per (run, judge, answer, claim), so one import can carry
    # several judges' labels of the same claim (human + LLM judges, App. G / FABLES).
    def second_judge(tables):
        tables["judges"].append({"judge_id": "j10", "kind": "human"})
        tables["claim_verdicts"].append({**tables["claim_verdicts"][0], "judge_id": "j10"})

    folder = dataset_with(tmp_path, second_judge)
    report = import_lfvqa_dir(seeded, folder)
    judges = seeded.rows(
        "SELECT DISTINCT judge_id FROM claim_verdicts WHERE run_id = ? ORDER BY 1", [report.run_id]
    )
    assert [j for (j,) in judges] == ["j10", "j9"]  # other_tables() renames j1 to j9


def test_same_judge_twice_on_one_claim_is_rejected(seeded, tmp_path):
    def repeated_verdict(tables):
        tables["claim_verdicts"].append(dict(tables["claim_verdicts"][0]))

    folder = dataset_with(tmp_path, repeated_verdict)
    assert_rejected(
        seeded,
        folder,
        "claim_verdicts.jsonl",
        "line 3",
        "judge_id+answer_id+claim_id",
        "same as record 1",
    )


@pytest.mark.parametrize("fmt, record", [("jsonl", "line 3"), ("parquet", "row 3")])
def test_a_prediction_of_an_unknown_mcq_is_refused(seeded, tmp_path, fmt, record):
    # Predictions are checked against mcq_questions of this import and the store, named by
    # line / row, and nothing of the import is kept (JSONL and Parquet alike).
    mcq = {"mcq_id": "m1", "source": "Friends", "vid": "Friends-S01E01", "question": "Who?"}
    mcq |= {"choices": ["Ross", "Joey"], "gt": "Ross", "option": "A"}
    preds = [{"mcq_id": m, "method": "x", "predicted_option": "A"} for m in ("m1", "m1", "m404")]
    preds[1]["method"] = "y"
    folder = write_dataset(tmp_path / "bad", {"mcq_questions": [mcq]})
    if fmt == "jsonl":
        write_lines(folder, "mcq_predictions", [as_line(p) for p in preds])
    else:
        pq.write_table(pa.Table.from_pylist(preds), folder / "mcq_predictions.parquet")
    file = f"mcq_predictions.{fmt}"
    message = assert_rejected(seeded, folder, file, record, "mcq_id", "unknown mcq_id 'm404'")
    assert "not in mcq_questions" in message
