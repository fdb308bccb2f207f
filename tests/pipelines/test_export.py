"""`storyscope export`: every export with run ids, filters, the three formats, and the
round trip export → `import lfvqa` giving the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from typer.testing import CliRunner

from data_access.importers.lfvqa import import_lfvqa_dir
from data_access.queries.export_rows import EXPORTS, ExportError, frame_bytes
from data_access.store import Store
from data_access.tables import review_labels
from data_access.tables.judging import ensure_judge, write_verdicts
from data_access.tables.review_labels import ClaimLabel
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.cli import app, load_commands
from pipelines.export import export_slice, slice_frame
from tests.support.paths import REPO_ROOT
from tests.support.store_files import store_copy

load_commands()
PAPER_SAMPLE = REPO_ROOT / "samples" / "lfvqa_paper"
MCQ = {
    "mcq_id": "m1",
    "source": "Friends",
    "vid": "s01e01",
    "question": "Who opens the door?",
    "choices": ["Ross", "Rachel", "Monica", "Joey", "Chandler"],
    "gt": "Monica",
    "option": "C",
    "question_type": "P",
    "story_element": "C",
    "characters": ["Monica"],
}


def _source_store(store: Store, tmp_path: Path) -> None:
    """The paper sample (ours to ship), an MCQ, a machine judge and a human's labels."""
    import_lfvqa_dir(store, PAPER_SAMPLE)
    folder = tmp_path / "mcq"
    folder.mkdir()
    (folder / "manifest.json").write_text(
        json.dumps({"format": "storyscope-lfvqa", "version": 1, "dataset_id": "m", "name": "m"})
    )
    (folder / "mcq_questions.jsonl").write_text(json.dumps(MCQ) + "\n")
    import_lfvqa_dir(store, folder)
    items = store.df(
        "SELECT a.answer_id, c.claim_id FROM answers a JOIN rubric_claims c USING (question_id)"
        " ORDER BY 1, 2 LIMIT 40"
    )
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("judge", backend="manual"))
        ensure_judge(cursor, "lex", "lexical", "manual", None, None, run_id)
        write_verdicts(cursor, run_id, "lex", [(a, c, "omitted", "why") for a, c in items.values])
        finish_run(cursor, run_id)
    first = items.iloc[0]
    review_labels.label_claims(
        store, "alice", [ClaimLabel(first.answer_id, first.claim_id, "asserted")]
    )
    review_labels.label_claims(
        store, "alice", [ClaimLabel(first.answer_id, first.claim_id, "contradicted", "on 2nd look")]
    )


@pytest.fixture
def source(store_path, seeded_template) -> Store:
    """A store holding `_source_store`'s content: a copy of one built once per test process."""
    return store_copy(seeded_template("export-source", _source_store), store_path)


_COMPARE = {  # export name -> (store table or view of the source, sort key)
    "films": ("films", ["film_id"]),
    "questions": ("questions", ["question_id"]),
    "claims": ("rubric_claims", ["claim_id"]),
    "evidence": ("question_evidence", ["question_id", "ord"]),
    "settings": ("settings", ["setting_id"]),
    "answers": ("answers", ["answer_id"]),
    "judges": ("judges", ["judge_id"]),
    "verdicts": ("current_claim_verdicts", ["judge_id", "answer_id", "claim_id"]),
    "mcqs": ("mcq_questions", ["mcq_id"]),
}
_TARGET = {"verdicts": "claim_verdicts"}
_NOT_COMPARED = {"run_id", "dataset_id", "evidence_seconds", "extra"}


def _rows(store: Store, table: str, key: list[str], columns: list[str]) -> pd.DataFrame:
    picked = ", ".join(f'"{c}"' for c in columns)
    frame = store.df(f"SELECT {picked} FROM {table}")
    return frame.sort_values(key).reset_index(drop=True)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_export_then_import_gives_the_same_rows(source, tmp_path, fmt):
    store = source
    folder = tmp_path / f"out-{fmt}"
    for name in _COMPARE:
        export_slice(store, name, fmt, folder, interchange=True)
    assert (folder / "manifest.json").is_file()
    target = Store(tmp_path / "target.duckdb", lock_timeout=10)
    report = import_lfvqa_dir(target, folder)
    assert report.rows["claim_verdicts"] == store.scalar(
        "SELECT count(*) FROM current_claim_verdicts"
    )
    for name, (table, key) in _COMPARE.items():
        with store.session() as cursor:
            all_columns = [
                d[0] for d in cursor.execute(f"SELECT * FROM {table} LIMIT 0").description
            ]
        columns = [c for c in all_columns if c not in _NOT_COMPARED]
        before = _rows(store, table, key, columns)
        after = _rows(target, _TARGET.get(name, table), key, columns)
        pd.testing.assert_frame_equal(before, after, check_dtype=False, obj=name)


def test_every_export_carries_run_ids(source):
    store = source
    for name in EXPORTS:
        frame = slice_frame(store, name)
        assert "run_id" in frame.columns or "run_ids" in frame.columns, name
    human = slice_frame(store, "verdicts", {"judge_id": ["human:alice"]})
    assert human["verdict"].tolist() == ["contradicted"]
    history = slice_frame(store, "verdicts-history", {"judge_id": ["human:alice"]})
    assert sorted(history["verdict"]) == ["asserted", "contradicted"]
    metrics = slice_frame(store, "metrics", {"judge_id": ["lex"]})
    assert {"f1", "recall", "precision", "contradiction", "run_ids"} <= set(metrics.columns)
    mcqs = slice_frame(store, "mcqs")
    assert {"d_q", "d_a", "d_qa", "bin", "difficulty_run_id"} <= set(mcqs.columns)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_formats_read_back_with_the_same_rows(source, tmp_path, fmt):
    store = source
    out = tmp_path / f"answers.{fmt}"
    report = export_slice(
        store, "answers", fmt, out, {"setting_id": ["lfvqa-paper:qwen3.6:screenplay"]}
    )
    reader = {"parquet": "read_parquet", "csv": "read_csv", "jsonl": "read_json"}[fmt]
    back = duckdb.sql(f"SELECT * FROM {reader}('{out}')").df()
    expected = store.df("SELECT * FROM answers WHERE setting_id = 'lfvqa-paper:qwen3.6:screenplay'")
    assert report.rows == len(back) == len(expected) > 0
    assert sorted(back["answer_id"]) == sorted(expected["answer_id"])
    assert frame_bytes(expected, fmt)[:4] == out.read_bytes()[:4]


def test_bad_exports_are_clear(store, tmp_path):
    with pytest.raises(ExportError, match="unknown export 'nope'"):
        slice_frame(store, "nope")
    with pytest.raises(ExportError, match="has no column 'colour'"):
        slice_frame(store, "answers", {"colour": ["red"]})
    with pytest.raises(ExportError, match="not importable"):
        export_slice(store, "plottree", "jsonl", tmp_path, interchange=True)


def test_export_cli(source, store_path, tmp_path):
    runner = CliRunner()
    out = tmp_path / "v.csv"
    result = runner.invoke(
        app,
        [
            "export",
            "verdicts",
            "--where",
            "judge_id=human:alice",
            "--format",
            "csv",
            "--out",
            str(out),
            "--store",
            str(store_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "verdicts: 1 rows" in result.output
    assert "contradicted" in out.read_text()
    listed = runner.invoke(app, ["export", "--list", "--store", str(store_path)])
    assert "plottree" in listed.output and "(importable)" in listed.output
    bad = runner.invoke(app, ["export", "answers", "--where", "x", "--out", str(out)])
    assert bad.exit_code == 2 and "KEY=V1" in bad.output


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_download_bytes_hold_list_columns(tmp_path, fmt):
    # page frames carry DuckDB lists as numpy arrays in object columns (e.g. belief lanes)
    import numpy as np

    lists = [np.array(["e1", "e2"], dtype=object), np.array([], dtype=object)]
    shown = pd.DataFrame({"id": ["a", "b"], "basis": lists})
    path = tmp_path / f"slice.{fmt}"
    path.write_bytes(frame_bytes(shown, fmt))
    reader = {"parquet": "read_parquet", "csv": "read_csv", "jsonl": "read_json"}[fmt]
    back = duckdb.sql(f"SELECT * FROM {reader}('{path}') ORDER BY id").fetchall()
    assert back[0][0] == "a" and "e2" in str(back[0][1]) and len(back) == 2


def test_every_importable_export_of_a_store_re_imports_even_with_empty_tables(store, tmp_path):
    """Exporting every importable table (the paper sample holds no beliefs, PlotTrees or meta
    beliefs) gives a folder that imports: an empty table's file is left out, as the format says,
    also where an earlier export left one (--force)."""
    import_lfvqa_dir(store, PAPER_SAMPLE)
    folder = tmp_path / "all"
    reports = {
        name: export_slice(store, name, "jsonl", folder, interchange=True)
        for name, source in EXPORTS.items()
        if source.interchange
    }
    empty = {name for name, report in reports.items() if report.rows == 0}
    assert "beliefs" in empty and "films" not in empty
    assert all(not reports[name].written and not reports[name].path.exists() for name in empty)
    stale = reports["beliefs"].path
    stale.write_text('{"stale": true}\n')
    again = export_slice(store, "beliefs", "jsonl", folder, interchange=True, force=True)
    assert not again.written and not stale.exists()
    target = Store(tmp_path / "target.duckdb", lock_timeout=10)
    imported = import_lfvqa_dir(target, folder)
    assert imported.rows["answers"] == store.scalar("SELECT count(*) FROM answers")
