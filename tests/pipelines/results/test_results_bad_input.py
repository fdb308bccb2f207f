"""`import results` on bad input, for every format: a truncated file, the wrong format named,
samples of another task, duplicated sample ids. Each gives one problem naming file, record
and field, and leaves the store exactly as it was (every table compared)."""

from __future__ import annotations

import json
import zipfile

import pytest
from typer.testing import CliRunner

from data_access.importers import ImportFailure
from pipelines.results import import_results
from tests.support import harness_fixtures as hf
from tests.support.store_snapshots import store_dump


@pytest.fixture
def seeded(store_path, seeded_template):
    return hf.seeded_store_copy(store_path, seeded_template, 4)


def rejected(store, path, file: str, record: str, field: str, words: str, **options) -> str:
    before = store_dump(store)
    with pytest.raises(ImportFailure) as caught:
        import_results(store, path, **options)
    problem = caught.value.first
    assert (problem.file, problem.record, problem.field) == (file, record, field), str(problem)
    assert words in problem.message, problem.message
    assert store_dump(store) == before
    return problem.message


def truncate(path, keep: float = 0.7):
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def lmms_file(tmp_path, lines=None, task="storyscope_lfvqa"):
    lines = lines or [hf.lmms_eval_line(i, f"q{i:06d}", f"Answer {i}.") for i in range(3)]
    return hf.write_lmms_eval(tmp_path / "out", lines, task=task)


# -- lmms-eval -------------------------------------------------------------------------------------
def test_lmms_eval_truncated(seeded, tmp_path):
    path = truncate(lmms_file(tmp_path))
    message = rejected(seeded, path, path.name, "line 3", "-", "invalid JSON")
    assert "truncated" in message


def test_lmms_eval_wrong_format_named(seeded, tmp_path):
    out = hf.write_jsonl(tmp_path / "batch.jsonl", [hf.batch_output_line("q000000", "x")])
    rejected(seeded, out, "batch.jsonl", "line 1", "doc_id", "is --format right?",
             format="lmms-eval")  # fmt: skip


def test_lmms_eval_samples_of_another_task(seeded, tmp_path):
    path = lmms_file(tmp_path)
    summary = next(path.parent.glob("*_results.json"))
    data = json.loads(summary.read_text())
    data["configs"] = {"videomme": data["configs"]["storyscope_lfvqa"]}
    summary.write_text(json.dumps(data))
    rejected(seeded, path, summary.name, "(file)", "configs", "samples are of another run")


def test_samples_naming_no_stored_question(seeded, tmp_path):
    lines = [hf.lmms_eval_line(i, f"videomme-{i}", "B") for i in range(3)]
    path = lmms_file(tmp_path, lines)
    message = rejected(seeded, path, path.name, "(file)", "<metric>.question_id", "none of the 3")
    # the samples' own ids, and the ids they were looked up by
    assert "unknown id: 3 (first: '0', '1', '2'; looked up by <metric>.question_id:" in message
    assert "'videomme-0', 'videomme-1', 'videomme-2')" in message
    # the dry run reports the same refusal instead of raising it (and the command exits 2 on it)
    before = store_dump(seeded)
    report = import_results(seeded, path, dry_run=True)
    assert report.n_matched == 0 and report.unmatched["unknown id"].count == 3
    assert message in report.would_refuse and store_dump(seeded) == before


def test_lmms_eval_duplicated_doc_id(seeded, tmp_path):
    lines = [hf.lmms_eval_line(0, "q000000", "a"), hf.lmms_eval_line(0, "q000001", "b")]
    path = lmms_file(tmp_path, lines)
    rejected(seeded, path, path.name, "line 2", "doc_id", "duplicated sample id '0'")


def test_two_samples_answering_one_question(seeded, tmp_path):
    lines = [hf.lmms_eval_line(0, "q000000", "a"), hf.lmms_eval_line(1, "q000000", "b")]
    path = lmms_file(tmp_path, lines)
    rejected(seeded, path, path.name, "line 2", "<metric>.question_id", "a second sample")


# -- lm-evaluation-harness -------------------------------------------------------------------------
def lm_eval_file(tmp_path, lines=None):
    lines = lines or [
        hf.lm_eval_line(i, {"mcq_id": f"m{i:06d}"}, loglikelihoods=[-1.0, -2.0, -3.0, -4.0])
        for i in range(3)
    ]
    return hf.write_lm_eval(tmp_path / "out", lines, "svqa_mc", "multiple_choice")


def test_lm_eval_truncated(seeded, tmp_path):
    path = truncate(lm_eval_file(tmp_path), 0.5)
    rejected(seeded, path, path.name, "line 2", "-", "invalid JSON")


def test_lm_eval_wrong_format_named(seeded, tmp_path):
    path = hf.write_jsonl(tmp_path / "plain.jsonl", [{"question_id": "q000000", "answer": "x"}])
    rejected(seeded, path, "plain.jsonl", "line 1", "doc_id", "not an lm-eval samples record",
             format="lm-eval")  # fmt: skip


def test_lm_eval_duplicated_doc_in_one_filter(seeded, tmp_path):
    line = hf.lm_eval_line(0, {"mcq_id": "m000000"}, loglikelihoods=[-1.0, -2.0])
    path = lm_eval_file(tmp_path, [line, line])
    rejected(seeded, path, path.name, "line 2", "doc_id", "duplicated sample id")


def test_lm_eval_samples_of_another_task_by_line(seeded, tmp_path):
    line = hf.lm_eval_line(0, {"mcq_id": "m000000"}, loglikelihoods=[-1.0, -2.0])
    line["task"] = "mmlu"
    path = lm_eval_file(tmp_path, [line])
    rejected(seeded, path, path.name, "line 1", "task", "a sample of another task")


# -- VLMEvalKit ------------------------------------------------------------------------------------
def vlm_file(tmp_path, rows=None, suffix=".xlsx"):
    rows = rows or [hf.vlmevalkit_row(i, f"m{i:06d}", "A") for i in range(3)]
    return hf.write_vlmevalkit(tmp_path / "out", rows, suffix)


def test_vlmevalkit_truncated_workbook(seeded, tmp_path):
    path = truncate(vlm_file(tmp_path))
    rejected(seeded, path, path.name, "(file)", "-", "not a readable .xlsx workbook")


def test_vlmevalkit_wrong_format_named(seeded, tmp_path):
    path = tmp_path / "scores.tsv"
    path.write_text("index\tscore\n1\t0.5\n")
    rejected(seeded, path, "scores.tsv", "row 1", "prediction", "not a VLMEvalKit prediction",
             format="vlmevalkit")  # fmt: skip


def test_vlmevalkit_duplicated_index(seeded, tmp_path):
    rows = [hf.vlmevalkit_row(0, "m000000", "A"), hf.vlmevalkit_row(0, "m000001", "B")]
    path = vlm_file(tmp_path, rows, ".tsv")
    rejected(seeded, path, path.name, "row 3", "index", "duplicated sample id '0'")


def test_vlmevalkit_samples_of_another_benchmark(seeded, tmp_path):
    rows = [hf.vlmevalkit_row(i, f"MMBench-{i}", "A") for i in range(2)]
    path = vlm_file(tmp_path, rows)
    rejected(seeded, path, path.name, "(file)", "mcq_id", "none of the 2 samples")


# -- inspect_ai ------------------------------------------------------------------------------------
def inspect_file(tmp_path, samples=None, suffix=".eval"):
    samples = samples or [
        hf.inspect_sample(i, "ANSWER: A", {"mcq_id": f"m{i:06d}"}) for i in range(3)
    ]
    return hf.write_inspect_log(tmp_path / f"log{suffix}", samples)


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_truncated(seeded, tmp_path, suffix):
    path = truncate(inspect_file(tmp_path, suffix=suffix), 0.6)
    rejected(seeded, path, path.name, "(file)", "-", "not a readable inspect log")


def test_inspect_wrong_format_named(seeded, tmp_path):
    path = lmms_file(tmp_path)
    rejected(seeded, path, path.name, "(file)", "-", "not a readable inspect log",
             format="inspect")  # fmt: skip


def test_inspect_damaged_sample_member(seeded, tmp_path):
    path = inspect_file(tmp_path)
    damaged = tmp_path / "damaged.eval"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(damaged, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, b"{" if item.filename.startswith("samples/1_") else data)
    rejected(seeded, damaged, "damaged.eval", "(samples)", "-", "unreadable sample")


def test_inspect_without_the_library_says_how_to_install_it(seeded, tmp_path, monkeypatch):
    from pipelines.results import inspect_log

    path = inspect_file(tmp_path)
    monkeypatch.setattr(inspect_log, "_library", lambda: None)  # `make run` has no inspect_ai
    rejected(seeded, path, path.name, "(file)", "-", "pip install 'storyscope[harness]'")


def test_inspect_duplicated_sample_id(seeded, tmp_path):
    samples = [hf.inspect_sample(1, "ANSWER: A", {"mcq_id": f"m00000{i}"}) for i in range(2)]
    path = inspect_file(tmp_path, samples, ".json")
    rejected(seeded, path, path.name, "sample 2", "id", "duplicated sample id '1'")


# -- OpenAI Batch ----------------------------------------------------------------------------------
def test_openai_batch_truncated(seeded, tmp_path):
    lines = [hf.batch_output_line(f"q00000{i}", "x") for i in range(3)]
    path = truncate(hf.write_jsonl(tmp_path / "out.jsonl", lines), 0.9)
    rejected(seeded, path, "out.jsonl", "line 3", "-", "invalid JSON")


def test_openai_batch_wrong_format_named(seeded, tmp_path):
    path = lmms_file(tmp_path)
    rejected(seeded, path, path.name, "line 1", "custom_id", "not an OpenAI Batch output line",
             format="openai-batch")  # fmt: skip


def test_openai_batch_duplicated_custom_id(seeded, tmp_path):
    lines = [hf.batch_output_line("q000000", "x"), hf.batch_output_line("q000000", "y")]
    path = hf.write_jsonl(tmp_path / "out.jsonl", lines)
    rejected(seeded, path, "out.jsonl", "line 2", "custom_id", "duplicated sample id")


def test_openai_batch_output_of_another_batch(seeded, tmp_path):
    batch_in = hf.write_jsonl(tmp_path / "in.jsonl", [hf.batch_input_line("r-1", "q000000")])
    out = hf.write_jsonl(tmp_path / "out.jsonl", [hf.batch_output_line("r-9", "x")])
    rejected(seeded, out, "out.jsonl", "line 1", "custom_id", "'r-9' is not in in.jsonl",
             batch_input=batch_in)  # fmt: skip


# -- table -----------------------------------------------------------------------------------------
def test_table_truncated_parquet(seeded, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"question_id": ["q000000"], "answer": ["x"]}), path)
    truncate(path, 0.5)
    rejected(seeded, path, "t.parquet", "(file)", "-", "not a readable Parquet file")


def test_table_without_the_mapped_column(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("qid,reply\nq000000,x\n")
    rejected(seeded, path, "t.csv", "row 1", "question_id", "--map question_id=COLUMN")
    rejected(seeded, path, "t.csv", "row 1", "ans", "mapped to answer",
             column_map={"question_id": "qid", "answer": "ans"})  # fmt: skip


def test_table_duplicated_question(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("question_id,answer\nq000000,x\nq000000,y\n")
    rejected(seeded, path, "t.csv", "row 3", "question_id", "duplicated sample id")


def test_unknown_map_field(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("question_id,answer\nq000000,x\n")
    rejected(seeded, path, str(path), "(option)", "--map", "unknown field 'qid'",
             column_map={"qid": "question_id"})  # fmt: skip


# -- the command -----------------------------------------------------------------------------------
def test_cli_prints_one_error_line_and_exits_2(seeded, tmp_path, store_path):
    from pipelines.cli import app, load_commands

    load_commands()
    path = truncate(lmms_file(tmp_path))
    before = store_dump(seeded)
    result = CliRunner().invoke(app, ["import", "results", str(path), "--store", str(store_path)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: nothing was written: ")
    assert f"{path.name}, line 3, field '-': invalid JSON" in lines[0]
    assert store_dump(seeded) == before
    bad_map = CliRunner().invoke(
        app, ["import", "results", str(path), "--map", "nonsense", "--store", str(store_path)]
    )
    assert bad_map.exit_code == 2 and "expected FIELD=COLUMN" in bad_map.output
