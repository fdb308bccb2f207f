"""The interchange-format importer on a small dataset built in code, plus the paper sample."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.importers import ImportFailure, import_lfvqa_dir
from tests.support.lfvqa_dataset import MCQ, tiny_tables, write_dataset
from tests.support.paths import REPO_ROOT


def test_tiny_dataset_imports_every_table_under_one_run(store, tmp_path):
    report = import_lfvqa_dir(store, write_dataset(tmp_path / "tiny", tiny_tables()))
    assert report.rows == {
        "films": 2,
        "scenes": 3,
        "subtitles": 1,
        "questions": 1,
        "rubric_claims": 2,
        "settings": 1,
        "answers": 1,
        "judges": 1,
        "claim_verdicts": 2,
    }
    run = store.rows(
        "SELECT step, backend, status, n_items, reported_by_paper FROM runs WHERE run_id = ?",
        [report.run_id],
    )
    assert run == [("import.lfvqa", "import", "finished", 14, False)]
    for table in report.rows:
        assert store.scalar(f"SELECT count(*) FROM {table} WHERE run_id <> ?", [report.run_id]) == 0
    assert store.rows("SELECT dataset_id, name, kind FROM datasets") == [
        ("tiny", "Tiny set", "lfvqa")
    ]
    # defaults come from the model; typed values survive the JSON staging
    assert store.rows("SELECT film_id, kind, dataset_id, year FROM films ORDER BY film_id") == [
        ("f1", "film", "tiny", 2020),
        ("f2", "episode", "tiny", None),
    ]
    assert store.scalar("SELECT evidence_scenes FROM rubric_claims WHERE claim_id='q1.c1'") == [
        1,
        2,
    ]
    assert store.scalar("SELECT evidence_scenes FROM rubric_claims WHERE claim_id='q1.c2'") == []
    assert store.scalar("SELECT status FROM questions") == "released"


def test_references_resolve_against_rows_already_in_the_store(store, tmp_path):
    tables = tiny_tables()
    import_lfvqa_dir(store, write_dataset(tmp_path / "a", {"films": tables["films"]}))
    later = {k: v for k, v in tables.items() if k != "films"}
    report = import_lfvqa_dir(store, write_dataset(tmp_path / "b", later))
    assert report.rows["scenes"] == 3
    assert "already in the store" in report.notes[0]


def test_parquet_files_import_like_jsonl(store, tmp_path):
    folder = write_dataset(tmp_path / "pq", {"films": tiny_tables()["films"]})
    (folder / "films.jsonl").unlink()
    scenes = tiny_tables()["scenes"]
    pq.write_table(pa.Table.from_pylist(tiny_tables()["films"]), folder / "films.parquet")
    pq.write_table(pa.Table.from_pylist(scenes), folder / "scenes.parquet")
    report = import_lfvqa_dir(store, folder)
    assert report.rows == {"films": 2, "scenes": 3}
    assert store.scalar("SELECT sum(end_s) FROM scenes") == pytest.approx(9 + 19 + 29)


def test_mcq_predictions_get_correctness_from_their_question(store, tmp_path):
    mcq = dict(MCQ)
    preds = [
        {"mcq_id": "m1", "method": "x", "predicted_option": "A"},
        {"mcq_id": "m1", "method": "y", "predicted_option": "B"},
    ]
    import_lfvqa_dir(
        store, write_dataset(tmp_path / "m", {"mcq_questions": [mcq], "mcq_predictions": preds})
    )
    assert store.rows("SELECT method, correct FROM mcq_predictions ORDER BY method") == [
        ("x", True),
        ("y", False),
    ]


def test_paper_sample_imports_as_reported_by_the_paper(store):
    folder = REPO_ROOT / "samples" / "lfvqa_paper"
    if not (folder / "manifest.json").is_file():
        pytest.skip("samples/lfvqa_paper is not there yet")
    report = import_lfvqa_dir(store, folder)
    assert report.rows["questions"] > 0
    assert store.scalar("SELECT reported_by_paper FROM runs WHERE run_id = ?", [report.run_id])


def test_second_import_of_same_rows_is_rejected(store, tmp_path):
    folder = write_dataset(tmp_path / "tiny", tiny_tables())
    import_lfvqa_dir(store, folder)
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, folder)
    assert caught.value.first.file == "films.jsonl"
    assert caught.value.first.record == "line 1"
    assert "already in the store" in caught.value.first.message
    assert store.scalar("SELECT count(*) FROM runs") == 1


def test_parquet_list_columns_import(store, tmp_path):
    tables = tiny_tables()
    folder = write_dataset(
        tmp_path / "pql", {"films": tables["films"], "questions": tables["questions"]}
    )
    pq.write_table(
        pa.Table.from_pylist(
            [
                {**c, "evidence_scenes": c.get("evidence_scenes", [])}
                for c in tables["rubric_claims"]
            ]
        ),
        folder / "rubric_claims.parquet",
    )
    report = import_lfvqa_dir(store, folder)
    assert report.rows["rubric_claims"] == 2
    assert store.rows("SELECT claim_id, evidence_scenes FROM rubric_claims ORDER BY 1") == [
        ("q1.c1", [1, 2]),
        ("q1.c2", []),
    ]


def test_cli_reports_import_errors_without_a_traceback(tmp_path):
    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands

    load_commands()
    tables = tiny_tables()
    tables["films"][0]["year"] = "nineteen"
    folder = write_dataset(tmp_path / "bad", tables)
    store_file = tmp_path / "cli.duckdb"
    result = CliRunner().invoke(app, ["import", "lfvqa", str(folder), "--store", str(store_file)])
    assert result.exit_code == 2
    assert "films.jsonl, line 1, field 'year': must be an integer" in result.output
    assert "Traceback" not in result.output
    not_a_release = CliRunner().invoke(
        app, ["import", "storyvideoqa", str(folder), "--store", str(store_file)]
    )
    assert not_a_release.exit_code == 2
    assert "not a StoryVideoQA release" in not_a_release.output
    ok = write_dataset(tmp_path / "ok", tiny_tables())
    result = CliRunner().invoke(
        app, ["import", "lfvqa", str(ok), "--store", str(store_file), "--json"]
    )
    assert result.exit_code == 0
    assert json.loads(result.output)["rows"]["films"] == 2
