"""`storyscope export-task`: the files each harness reads, the ids
that come back, the filters, and the refusals (existing files, no match, bad filter) that write
nothing and leave the store as it was."""

from __future__ import annotations

import importlib.util
import json

import pytest
import yaml
from typer.testing import CliRunner

from pipelines.cli import app, load_commands
from tests.support.app_fixture_data import FILM, MCQS, QUESTIONS
from tests.support.store_snapshots import store_dump

load_commands()


def _export(store, out, *args):
    return CliRunner().invoke(
        app, ["export-task", "--store", str(store.path), "--out", str(out), *args]
    )


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class _TaskYamlLoader(yaml.SafeLoader):
    """PyYAML with lmms-eval's `!function module.name` tag (read as the name)."""


_TaskYamlLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def test_inspect_open_ended_samples_keep_ids_gold_and_rubric(fixture_store, tmp_path):
    out = tmp_path / "task"
    result = _export(fixture_store, out, "--harness", "inspect", "--where", f"film={FILM}")
    assert result.exit_code == 0, result.output
    assert "storyscope_lfvqa: 3 lfvqa questions" in result.output
    samples = _lines(out / "dataset.jsonl")
    assert [s["id"] for s in samples] == [q[0] for q in QUESTIONS]
    first, expected = samples[0], QUESTIONS[0]
    assert first["target"] == expected[6]  # the reference answer
    assert first["input"].endswith(f"Question: {expected[5]}")
    assert [c["text"] for c in first["metadata"]["claims"]] == [c[1] for c in expected[7]]
    assert first["metadata"]["qtype"] == "Q3" and first["metadata"]["question_id"] == "q1"
    manifest = json.loads((out / "storyscope_task.json").read_text())
    assert manifest["kind"] == "open-ended" and manifest["n_samples"] == 3
    assert manifest["where"] == {"film_id": [FILM]}
    assert (
        "@task\ndef storyscope_lfvqa(\n    judge_model: str | None = None,\n"
        "    judge_max_tokens: int = 1024,\n    step_limit: int | None = None,\n"
        "    tool_model: str | None = None,\n    video_dir: str | None = None,\n) -> Task:"
        in (out / "task.py").read_text()
    )


def test_an_edited_question_goes_out_as_its_latest_revision(fixture_store, tmp_path):
    from data_access.tables.review_labels import revise_question

    revise_question(fixture_store, "ann", "q2", "Edited question?", "Edited gold.", [], None)
    out = tmp_path / "task"
    assert _export(fixture_store, out, "--where", "question=q2").exit_code == 0
    (sample,) = _lines(out / "dataset.jsonl")
    assert sample["input"].endswith("Question: Edited question?")
    assert sample["target"] == "Edited gold." and sample["metadata"]["revision"] == 1


def test_mcq_for_inspect_carries_choices_and_the_correct_letter(fixture_store, tmp_path):
    out = tmp_path / "mcq"
    result = _export(fixture_store, out, "--questions", "mcq", "--where", "type=I", "--limit", "3")
    assert result.exit_code == 0, result.output
    samples = _lines(out / "dataset.jsonl")
    interpretive = [m for m in MCQS if m[1] == "I"][:3]
    assert [s["id"] for s in samples] == [f"Movie:lighthouse:{m[0]}" for m in interpretive]
    assert [s["target"] for s in samples] == [m[3] for m in interpretive]
    assert samples[0]["choices"] == [f"choice {letter}" for letter in "ABCDE"]
    assert samples[0]["metadata"]["video"] == "lighthouse.mp4"


def test_lmms_eval_task_yaml_follows_the_task_schema(fixture_store, tmp_path):
    out = tmp_path / "lmms"
    result = _export(fixture_store, out, "--harness", "lmms-eval", "--questions", "mcq")
    assert result.exit_code == 0, result.output
    config = yaml.load((out / "storyscope_storyvideoqa.yaml").read_text(), _TaskYamlLoader)
    assert config["task"] == "storyscope_storyvideoqa"
    assert config["dataset_path"] == "json" and config["test_split"] == "test"
    data_file = config["dataset_kwargs"]["data_files"]["test"]
    assert data_file == str((out / "storyscope_storyvideoqa.jsonl").resolve())
    assert config["doc_to_visual"] == "utils.doc_to_visual"
    assert config["process_results"] == "utils.process_results"
    assert config["metric_list"][0] == {
        "metric": "storyscope_accuracy",
        "aggregation": "utils.aggregate_score",
        "higher_is_better": True,
    }
    docs = _lines(out / "storyscope_storyvideoqa.jsonl")
    assert len(docs) == len(MCQS) and docs[0]["mcq_id"] == docs[0]["id"] == "Movie:lighthouse:1"


def _utils(out):
    spec = importlib.util.spec_from_file_location("exported_utils", out / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lmms_eval_utils_prompt_score_and_find_videos(fixture_store, tmp_path, monkeypatch):
    out = tmp_path / "lmms"
    assert (
        _export(fixture_store, out, "--harness", "lmms-eval", "--questions", "mcq").exit_code == 0
    )
    utils, doc = _utils(out), _lines(out / "storyscope_storyvideoqa.jsonl")[0]
    prompt = utils.doc_to_text(doc, {"pre_prompt": "", "post_prompt": "\nLetter?"})
    assert (
        prompt == "MCQ 1 about the lighthouse?\nA. choice A\nB. choice B\nC. choice C\n"
        "D. choice D\nE. choice E\nLetter?"
    )
    right = utils.process_results(doc, ["A"])["storyscope_accuracy"]
    assert right == {"question_id": doc["mcq_id"], "pred": "A", "pred_letter": "A", "score": 1.0}
    wrong = utils.process_results(doc, ["The answer is (B)."])["storyscope_accuracy"]
    assert wrong["pred_letter"] == "B" and wrong["score"] == 0.0
    assert utils.aggregate_score([right, wrong]) == 0.5
    assert utils.extract_letter("ANSWER: c", 5) == "C"
    assert utils.extract_letter("I think so", 5) is None  # the lone "I" is no option of A-E
    monkeypatch.delenv("STORYSCOPE_VIDEO_DIR", raising=False)
    assert utils.doc_to_visual(doc) == []  # no video folder: a text-only run
    (tmp_path / "videos").mkdir()
    (tmp_path / "videos" / "lighthouse.mp4").write_bytes(b"")
    monkeypatch.setenv("STORYSCOPE_VIDEO_DIR", str(tmp_path / "videos"))
    assert utils.doc_to_visual(doc) == [str(tmp_path / "videos" / "lighthouse.mp4")]


def test_lmms_eval_open_ended_scores_token_f1(fixture_store, tmp_path):
    out = tmp_path / "lmms"
    assert _export(fixture_store, out, "--harness", "lmms-eval").exit_code == 0
    utils, doc = _utils(out), _lines(out / "storyscope_lfvqa.jsonl")[0]
    assert doc["question_id"] == "q1" and "choices" not in doc
    same = utils.process_results(doc, [doc["target"]])["storyscope_token_f1"]
    assert same["question_id"] == "q1" and same["score"] == 1.0
    assert utils.process_results(doc, ["nothing alike"])["storyscope_token_f1"]["score"] == 0.0


def test_refusals_write_nothing_and_leave_the_store(fixture_store, tmp_path):
    before = store_dump(fixture_store)
    out = tmp_path / "task"
    out.mkdir()
    (out / "dataset.jsonl").write_text("mine\n")
    existing = _export(fixture_store, out)
    assert existing.exit_code == 2 and "exists already; add --force" in existing.output
    assert (out / "dataset.jsonl").read_text() == "mine\n" and not (out / "task.py").exists()
    empty = _export(fixture_store, tmp_path / "none", "--where", "film=nowhere")
    assert empty.exit_code == 2 and "no lfvqa question matches" in empty.output
    assert not (tmp_path / "none").exists()
    bad_key = _export(fixture_store, tmp_path / "bad", "--where", "vid=x")
    assert bad_key.exit_code == 2 and "unknown field 'vid'" in bad_key.output
    harness = _export(fixture_store, tmp_path / "bad", "--harness", "vlmevalkit")
    assert harness.exit_code == 2 and "unknown harness 'vlmevalkit'" in harness.output
    onto_store = _export(fixture_store, fixture_store.path)
    assert onto_store.exit_code == 2 and "is a file; give the path of a folder" in onto_store.output
    assert store_dump(fixture_store) == before
    assert _export(fixture_store, out, "--force").exit_code == 0
    assert len(_lines(out / "dataset.jsonl")) == 3


@pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None, reason="inspect_ai missing")
def test_inspect_reads_the_dataset_with_its_own_loader(fixture_store, tmp_path):
    from inspect_ai.dataset import json_dataset

    out = tmp_path / "task"
    assert _export(fixture_store, out, "--questions", "mcq", "--limit", "2").exit_code == 0
    dataset = json_dataset(str(out / "dataset.jsonl"))
    assert [s.id for s in dataset] == ["Movie:lighthouse:1", "Movie:lighthouse:2"]
    assert dataset[1].choices == [f"choice {letter}" for letter in "ABCDE"]
    assert dataset[1].target == "B" and dataset[1].metadata["vid"] == "lighthouse"
