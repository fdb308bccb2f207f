"""`import results` provenance and what imported rows are: the run and setting record harness,
version, model, args, task and file hash; the same file again is a no-op, a changed file a new
run; a dry run writes nothing; imported answers are judged like any answer and imported
predictions feed accuracy by topic on Distributions."""

from __future__ import annotations

import json

import pytest

from data_access.queries import distributions_view
from pipelines.judge.run import JudgeOptions, run_judge
from pipelines.results import import_results
from tests.support import harness_fixtures as hf
from tests.support.store_snapshots import store_dump


@pytest.fixture
def seeded(store_path, seeded_template):
    return hf.seeded_store_copy(store_path, seeded_template, 4)


def lmms_answers(tmp_path, texts: list[str]):
    lines = [hf.lmms_eval_line(i, f"q{i:06d}", text) for i, text in enumerate(texts)]
    return hf.write_lmms_eval(tmp_path / "out", lines)


def test_the_run_and_the_import_record_their_provenance(seeded, tmp_path):
    report = import_results(seeded, lmms_answers(tmp_path, ["Ann knows.", "Ben knows."]))
    step, backend, model, status, params, n_items = seeded.rows(
        "SELECT step, backend, model, status, params, n_items FROM runs WHERE run_id = ?",
        [report.run_id],
    )[0]
    assert (step, backend, status, n_items) == ("import.results", "lmms-eval", "finished", 2)
    assert model == "lmms-lab/llava-onevision-qwen2-7b-ov"
    params = json.loads(params)
    assert params["file_sha256"] == report.file_sha256 and len(report.file_sha256) == 64
    assert params["harness_version"] == "0.3.0" and params["task"] == "storyscope_lfvqa"
    assert params["model_args"].startswith("pretrained=lmms-lab/")
    row = seeded.rows(
        "SELECT setting_id, kind, harness, model, file_sha256, n_samples, n_matched"
        " FROM result_imports WHERE run_id = ?",
        [report.run_id],
    )[0]
    assert row == (report.setting_id, "answers", "lmms-eval", report.model, report.file_sha256,
                   2, 2)  # fmt: skip


def test_the_same_file_again_is_a_no_op(seeded, tmp_path):
    path = lmms_answers(tmp_path, ["Ann knows."])
    first = import_results(seeded, path)
    before = store_dump(seeded)
    again = import_results(seeded, path)
    assert again.already_imported and again.run_id == first.run_id
    assert again.setting_id == first.setting_id
    assert store_dump(seeded) == before


def test_a_changed_answers_file_is_a_new_run_and_setting(seeded, tmp_path):
    first = import_results(seeded, lmms_answers(tmp_path, ["Ann knows."]), setting="llava")
    changed = import_results(seeded, lmms_answers(tmp_path, ["Ann knows more."]), setting="llava")
    assert changed.run_id != first.run_id and not changed.already_imported
    assert changed.setting_id == f"llava@{changed.file_sha256[:8]}"
    assert any("changed file" in note for note in changed.notes)
    texts = dict(seeded.rows("SELECT setting_id, text FROM answers WHERE question_id = 'q000000'"
                             " AND setting_id LIKE 'llava%'"))  # fmt: skip
    assert texts == {"llava": "Ann knows.", changed.setting_id: "Ann knows more."}


def test_a_changed_predictions_file_supersedes_the_method(seeded, tmp_path):
    def log(answer: str, name: str):
        samples = [hf.inspect_sample(i, f"ANSWER: {answer}", {"mcq_id": f"m{i:06d}"})
                   for i in range(4)]  # fmt: skip
        return hf.write_inspect_log(tmp_path / name, samples)

    import_results(seeded, log("A", "first.eval"), setting="smol")  # 1 of 4 right (gold A-D)
    second = import_results(seeded, log("B", "second.eval"), setting="smol")
    assert second.setting_id == "smol" and any("supersedes" in n for n in second.notes)
    topic = distributions_view.accuracy_by_topic(seeded)
    smol = topic[topic["method"] == "smol"]
    assert smol["n"].sum() == 4 and smol["accuracy"].iloc[0] == pytest.approx(25.0)


def test_a_dry_run_writes_nothing(seeded, tmp_path):
    path = lmms_answers(tmp_path, ["Ann knows.", ""])
    before = store_dump(seeded)
    report = import_results(seeded, path, dry_run=True)
    assert report.dry_run and report.run_id is None
    assert (report.n_samples, report.n_matched, report.kind) == (2, 1, "answers")
    assert report.unmatched["empty answer"].count == 1
    assert store_dump(seeded) == before
    assert not import_results(seeded, path).already_imported  # a dry run is no import


def test_imported_answers_are_judged_like_any_answer(seeded, tmp_path):
    report = import_results(seeded, lmms_answers(tmp_path, [hf.CLAIM, "Nothing to do with it."]))
    summary = run_judge(seeded, JudgeOptions(backend="lexical",
                                              where={"settings": [report.setting_id]}))  # fmt: skip
    verdicts = dict(
        seeded.rows(
            "SELECT a.question_id, v.verdict FROM claim_verdicts v JOIN answers a USING (answer_id)"
            " WHERE v.run_id = ?",
            [summary["run_id"]],
        )
    )
    assert verdicts == {"q000000": "asserted", "q000001": "omitted"}


def test_imported_predictions_feed_accuracy_by_topic(seeded, tmp_path):
    rows = [hf.vlmevalkit_row(i, f"m{i:06d}", hf.mcq_gold(i) if i < 3 else "A") for i in range(4)]
    report = import_results(seeded, hf.write_vlmevalkit(tmp_path / "out", rows))
    topic = distributions_view.accuracy_by_topic(seeded)
    row = topic[topic["method"] == report.setting_id].iloc[0]
    assert (row["question_type"], row["story_element"]) == ("P", "C")
    assert row["accuracy"] == pytest.approx(75.0) and row["n"] == 4


def test_the_command_prints_the_report_and_json(seeded, tmp_path, store_path):
    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands

    load_commands()
    path = lmms_answers(tmp_path, ["Ann knows.", ""])
    args = ["import", "results", str(path), "--store", str(store_path), "--setting", "llava"]
    dry = CliRunner().invoke(app, [*args, "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    data = json.loads(dry.output)
    assert (data["dry_run"], data["n_matched"], data["setting_id"]) == (True, 1, "llava")
    assert data["unmatched"] == {
        "empty answer": {"count": 1, "first_ids": ["1"], "first_links": ["q000001"]}
    }
    assert data["link_field"] == "<metric>.question_id"
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0
    assert "imported 1 of 2 samples as answers of setting llava" in done.output
    assert "not imported, empty answer: 1 (first: 1)" in done.output
    again = CliRunner().invoke(app, args)
    assert "already imported as run" in again.output
