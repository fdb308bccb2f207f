"""`import results` reads each harness's files the way that harness, at the version that wrote
them, read them: its own verdicts where the file has them, its letter rule of that version, its
naming of the day; and the report says which rule read each letter, what it linked on and the
harness's own accuracy. Fixtures: tests/support/harness_versions.py (writer file and commit per
shape)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from data_access.importers import ImportFailure
from data_access.importers.results.report import UNKNOWN_ID
from pipelines.results import detect_format, import_results
from pipelines.results.letters import (
    HARNESS_PARSE,
    STORYSCOPE_RULE,
    VLMEVAL_JUDGED,
    storyscope_letter,
)
from tests.support import harness_fixtures as hf
from tests.support import harness_versions as hv

MODEL, DATASET = "Qwen2-VL-7B", "StoryVideoQA"


@pytest.fixture
def seeded(store_path, seeded_template):
    return hf.seeded_store_copy(store_path, seeded_template, 6)


def predictions_of(store, run_id: str) -> dict[str, str | None]:
    rows = store.rows(
        "SELECT mcq_id, predicted_option FROM mcq_predictions WHERE run_id = ?", [run_id]
    )
    return dict(rows)


def stored_accuracy(store, run_id: str) -> float:
    return store.scalar(
        "SELECT avg(CASE WHEN correct THEN 1.0 ELSE 0.0 END) FROM mcq_predictions WHERE run_id = ?",
        [run_id],
    )


def refused(store, path, words: str, **options) -> str:
    with pytest.raises(ImportFailure) as caught:
        import_results(store, path, **options)
    assert words in str(caught.value), str(caught.value)
    return str(caught.value)


# -- 1. VLMEvalKit's scored outcome ----------------------------------------------------------------
# Gold letters of m000000..m000005 are A B C D A B. Predictions shaped "['A']" defeat can_infer,
# so VLMEvalKit asked its judge; row 4's judge failed and VLMEvalKit picked at random (hit 0).
JUDGED = [
    ("['A']", "A", 1),
    ("['B']", "The answer is B", 1),
    ("['A']", "A", 0),
    ("D", "D", 1),
    ("['C']", "Failed to predict, thus randomly generate one", 0),
    ("B", "B", 1),
]


def scored_folder(tmp_path, shape="dated", judge="openai"):
    folder = hv.vlmevalkit_run_folder(tmp_path / "outputs", MODEL, shape)
    hv.write_vlmevalkit_scored(folder, MODEL, DATASET, JUDGED, hf.mcq_ids(6), judge)
    return folder


def test_vlmevalkit_scored_file_gives_the_harness_verdict(seeded, tmp_path):
    folder = scored_folder(tmp_path)
    report = import_results(seeded, folder)
    assert predictions_of(seeded, report.run_id) == {
        "m000000": "A",
        "m000001": "B",
        "m000002": "A",  # its judge read A; gold is C
        "m000003": "D",
        "m000004": None,  # VLMEvalKit's random pick is not logged: no letter, wrong
        "m000005": "B",
    }
    assert report.letter_rules == {VLMEVAL_JUDGED: [6, 1]}
    assert "letters by VLMEvalKit's scored outcome (hit/log): 6, 1 gave no option letter" in (
        "\n".join(report.lines())
    )


@pytest.mark.parametrize(
    ("shape", "judge"),
    [("flat", "openai"), ("dated", "exact_matching"), ("timestamped", "gpt-4o-mini")],
)
def test_vlmevalkit_accuracy_equals_its_acc_csv(seeded, tmp_path, shape, judge):
    folder = scored_folder(tmp_path, shape, judge)
    report = import_results(seeded, folder)
    stated = float(
        (folder / f"{MODEL}_{DATASET}_acc.csv").read_text().splitlines()[1].split(",")[1]
    )
    assert stored_accuracy(seeded, report.run_id) == pytest.approx(stated) == 4 / 6
    assert report.harness_accuracy == pytest.approx(stated)
    assert report.accuracy == pytest.approx(stated)
    assert report.task == DATASET
    assert not any("not the harness's" in note for note in report.lines())


def test_vlmevalkit_prediction_file_beside_its_scored_copy_says_so(seeded, tmp_path):
    folder = scored_folder(tmp_path)
    report = import_results(seeded, folder / f"{MODEL}_{DATASET}.xlsx")
    assert report.harness_accuracy is None  # a prediction file states none
    assert any(f"{MODEL}_{DATASET}_openai_result.xlsx" in note for note in report.notes)
    run = seeded.scalar("SELECT params FROM runs WHERE run_id = ?", [report.run_id])
    assert "can_infer" in str(run)


def test_vlmevalkit_keeps_the_raw_prediction_as_the_answer_text(seeded, tmp_path):
    from pipelines.results import open_results

    opened = open_results(scored_folder(tmp_path))
    assert [s.text for s in opened.samples][:3] == ["['A']", "['B']", "['A']"]


# -- 3. letters by the version that wrote the file -------------------------------------------------
# "B" is the first of eight words: every can_infer before 2025-08-04 reads it; the position rule
# of c3371551 only takes a letter among the last four words.
EARLY_LETTER = "B is my pick, though I am unsure"


@pytest.mark.parametrize(
    ("shape", "letter", "version"),
    [("dated", "B", "git 1ff966c3"), ("timestamped", None, f"git {hv.TIMESTAMPED_COMMIT}")],
)
def test_vlmevalkit_can_infer_of_the_run_date(seeded, tmp_path, shape, letter, version):
    folder = hv.vlmevalkit_run_folder(tmp_path / "outputs", MODEL, shape)
    replies = [EARLY_LETTER, "A", "C", "D", "A", "B"]
    path = hv.write_vlmevalkit_predictions(folder, MODEL, DATASET, replies, hf.mcq_ids(6))
    report = import_results(seeded, path)
    assert predictions_of(seeded, report.run_id)["m000000"] == letter
    assert report.harness_version == version
    assert report.model == MODEL and report.task == DATASET
    (rule,) = report.letter_rules
    assert ("2023-12-14" if shape == "dated" else "2025-08-04") in rule


def test_lmms_eval_uses_the_tasks_own_parse(seeded, tmp_path):
    # videomme-style: the task's parse is `pred_answer` in its metric dict
    replies = ["**Correct answer: B**", "The best answer is A", "C", "D", "none", "B"]
    parsed = ["B", "A", "C", "D", "", "B"]
    lines = [
        hv.lmms_line(i, reply, "videomme_perception_score",
                     {"question_id": m, "pred_answer": p, "answer": hf.mcq_gold(i)})
        for i, (m, reply, p) in enumerate(zip(hf.mcq_ids(6), replies, parsed))
    ]  # fmt: skip
    report = import_results(seeded, hv.write_lmms_run(tmp_path / "o", "videomme", lines, {}))
    assert predictions_of(seeded, report.run_id) == {
        "m000000": "B", "m000001": "A", "m000002": "C", "m000003": "D", "m000004": None,
        "m000005": "B",
    }  # fmt: skip
    assert report.letter_rules == {f"{HARNESS_PARSE} (pred_answer)": [6, 1]}


@pytest.mark.parametrize("version", ["0.3", "2026"])
def test_lmms_eval_line_without_a_parse_reads_by_the_export_rule(seeded, tmp_path, version):
    """ "Correct" must not be read as C: the export rule reads the letter after "answer:"."""
    line = hv.lmms_line(0, "**Correct answer: A**", "svqa_score", {"question_id": "m000000"},
                        version)  # fmt: skip
    report = import_results(seeded, hv.write_lmms_run(tmp_path / "o", "svqa", [line], {}))
    assert predictions_of(seeded, report.run_id) == {"m000000": "A"}
    assert report.letter_rules == {STORYSCOPE_RULE: [1, 0]}


def test_lmms_eval_0_2_3_wrote_lm_evals_names_and_is_still_lmms_eval(seeded, tmp_path):
    lines = [
        hv.lmms_line(i, reply, "videomme_perception_score",
                     {"question_id": m, "pred_answer": reply[-1]}, "0.2.3")
        for i, (m, reply) in enumerate(zip(hf.mcq_ids(2), ["Answer: A", "Answer: C"]))
    ]  # fmt: skip
    path = hv.write_lmms_run(tmp_path / "o", "videomme", lines, {"videomme_perception_score": 50.0},
                             version="0.2.3")  # fmt: skip
    assert path.name.startswith("samples_videomme_")
    assert detect_format(path) == detect_format(path.parent) == "lmms-eval"
    report = import_results(seeded, path, format="lmms-eval")
    assert predictions_of(seeded, report.run_id) == {"m000000": "A", "m000001": "C"}
    assert report.harness == "lmms-eval" and report.task == "videomme"
    assert report.harness_accuracy == pytest.approx(0.5) == report.accuracy
    refused(seeded, path, "use --format lmms-eval", format="lm-eval")


def test_lmms_eval_0_2_0_wrote_one_document_per_task(seeded, tmp_path):
    lines = [
        hv.lmms_line(i, reply, "videomme_perception_score",
                     {"question_id": m, "pred_answer": reply[-1]}, "0.2.0")
        for i, (m, reply) in enumerate(zip(hf.mcq_ids(2), ["Answer: A", "Answer: C"]))
    ]  # fmt: skip
    path = hv.write_lmms_run(tmp_path / "o", "videomme", lines, {"videomme_perception_score": 50.0},
                             version="0.2.0")  # fmt: skip
    assert path.name == "videomme.json"
    assert detect_format(path) == "lmms-eval"
    report = import_results(seeded, path)
    assert predictions_of(seeded, report.run_id) == {"m000000": "A", "m000001": "C"}
    assert report.task == "videomme" and report.harness_accuracy == pytest.approx(0.5)
    refused(seeded, path, "use --format lmms-eval", format="lm-eval")


VERBOSE_REPLIES = [
    "**Correct answer: B**",
    "Considering the scene, Chandler leaves. Answer: (C)",
    "A",
    "I believe D is right.",
    "Every option but E fits; the answer: B",
    "(B) green",
    "Correct! It is C.",
    "none of them",
]


def test_export_and_import_read_a_reply_alike():
    utils = hv.exported_lmms_utils()
    for reply in VERBOSE_REPLIES:
        for n_choices in (4, 5):
            assert utils["extract_letter"](reply, n_choices) == storyscope_letter(reply, n_choices)


def test_an_exported_task_run_imports_at_the_accuracy_lmms_eval_states(seeded, tmp_path):
    replies = ["**Correct answer: A**", "B", "Answer: (A)", "I think D.", "none", "(B) green"]
    path, stated = hv.storyscope_task_run(tmp_path / "o", replies, hf.mcq_ids(6))
    report = import_results(seeded, path)
    assert stored_accuracy(seeded, report.run_id) == pytest.approx(stated) == 4 / 6
    assert report.harness_accuracy == pytest.approx(stated)
    assert report.harness_accuracy_in == "results.storyscope_svqa.storyscope_accuracy,none"
    assert set(report.letter_rules) == {f"{HARNESS_PARSE} (pred_letter)"}


# -- 2. lm-eval's 2024 `.json` JSON lines ----------------------------------------------------------
def mc_lines():
    return [
        hf.lm_eval_line(0, {"mcq_id": "m000000"}, loglikelihoods=[-0.9797919988632202, -2.0]),
        hf.lm_eval_line(1, {"mcq_id": "m000001"}, loglikelihoods=[-2.0, -3.0, -0.1, -4.0]),
    ]


@pytest.mark.parametrize("shape", ["0.4.0", "2024-05", "0.4.3+"])
def test_lm_eval_samples_of_every_naming(seeded, tmp_path, shape):
    path = hv.write_lm_eval_run(tmp_path / "o", mc_lines(), "svqa_mc", "multiple_choice", shape,
                                acc=0.5)  # fmt: skip
    assert detect_format(path) == "lm-eval"
    if shape != "0.4.0":  # a 0.4.0 folder holds no name that says which file is the samples
        assert detect_format(path.parent) == "lm-eval"
    report = import_results(seeded, path, format="lm-eval")
    assert predictions_of(seeded, report.run_id) == {"m000000": "A", "m000001": "C"}
    assert report.model == "EleutherAI/pythia-160m" and report.task == "svqa_mc"
    assert report.harness_accuracy == pytest.approx(0.5) == report.accuracy


def test_lm_eval_without_an_output_type_is_refused_or_mapped(seeded, tmp_path):
    path = hv.write_lm_eval_run(tmp_path / "o", mc_lines(), "svqa_mc", None, "2024-05", False)
    message = refused(seeded, path, "cannot tell the task's output type")
    assert "--map output_type=multiple_choice" in message
    report = import_results(seeded, path, column_map={"output_type": "multiple_choice"})
    assert predictions_of(seeded, report.run_id) == {"m000000": "A", "m000001": "C"}


# -- 4. one question per id ------------------------------------------------------------------------
def mme_lines():
    """MME asks two questions of each image under one `question_id` (the image)."""
    return [
        hv.lmms_line(i, "Yes", "mme_perception_score",
                     {"question_id": "m000000" if i < 2 else "m000001", "score": 1.0})
        for i in range(3)
    ]  # fmt: skip


def test_a_dry_run_reports_shared_ids_and_names_the_fix(seeded, tmp_path):
    path = hv.write_lmms_run(tmp_path / "o", "mme", mme_lines(), {})
    report = import_results(seeded, path, dry_run=True)
    assert report.n_samples == 3
    assert "--map question_id=doc_id" in report.would_refuse
    assert "--map question_id=doc_id" in "\n".join(report.lines())
    message = refused(seeded, path, "--map question_id=doc_id")
    assert "a second sample for question 'm000000'" in message


# -- 5. what was looked up -------------------------------------------------------------------------
def test_nothing_linked_names_the_field_and_the_ids_tried(seeded, tmp_path):
    lines = [hv.lmms_line(i, "A", "x_score", {"question_id": f"00{i}-1"}) for i in range(3)]
    path = hv.write_lmms_run(tmp_path / "o", "other", lines, {})
    report = import_results(seeded, path, dry_run=True)
    assert report.link_field == "<metric>.question_id"
    assert report.unmatched[UNKNOWN_ID].first_links == ["000-1", "001-1", "002-1"]
    assert report.would_refuse and "none of the 3 samples links" in report.would_refuse
    text = "\n".join(report.lines())
    assert "looked up by <metric>.question_id: 000-1, 001-1, 002-1" in text
    assert report.as_dict()["link_field"] == "<metric>.question_id"
    message = refused(seeded, path, "looked up by <metric>.question_id: '000-1'")
    assert "none of the 3 samples" in message


# -- 6. --map fields a reader does not use ---------------------------------------------------------
@pytest.mark.parametrize(
    ("format", "field"),
    [("vlmevalkit", "option"), ("inspect", "id"), ("lm-eval", "error"), ("openai-batch", "answer")],
)
def test_a_map_the_reader_does_not_use_is_refused(seeded, tmp_path, format, field):
    path = hf.write_lmms_eval(tmp_path / "o", [hf.lmms_eval_line(0, "q000000", "A")])
    refused(seeded, path, f"does not use {field!r}", format=format, column_map={field: "x"})


def test_a_mapped_place_the_file_lacks_is_refused(seeded, tmp_path):
    path = hf.write_lmms_eval(tmp_path / "o", [hf.lmms_eval_line(0, "q000000", "A")])
    refused(seeded, path, "missing (mapped to answer by --map)",
            column_map={"answer": "nonexistent.field"})  # fmt: skip


def test_a_batch_link_map_without_the_input_is_refused(seeded, tmp_path):
    out = hf.write_jsonl(tmp_path / "out.jsonl", [hf.batch_output_line("r1", "Ann knows.")])
    refused(seeded, out, "give --batch-input too", column_map={"question_id": "body.metadata.q"})


def test_batch_replies_by_option_labels(seeded, tmp_path):
    out = hf.write_jsonl(
        tmp_path / "out.jsonl",
        [hf.batch_output_line(m, r) for m, r in zip(hf.mcq_ids(4), ["1", "2.", "(4)", "B"])],
    )
    report = import_results(seeded, out, column_map={"letters": "1234"})
    assert predictions_of(seeded, report.run_id) == {
        "m000000": "A", "m000001": "B", "m000002": "D", "m000003": None,
    }  # fmt: skip
    report = import_results(seeded, out, setting="b2", column_map={"letters": "1,2,3,4"})
    assert predictions_of(seeded, report.run_id)["m000002"] == "D"


# -- 7. provenance and wording ---------------------------------------------------------------------
def test_batch_input_records_the_served_model(seeded, tmp_path):
    out = hf.write_jsonl(tmp_path / "out.jsonl", [hf.batch_output_line("r1", "Ann knows.")])
    inp = hf.write_jsonl(tmp_path / "in.jsonl", [hf.batch_input_line("r1", "q000000")])
    report = import_results(seeded, out, batch_input=inp)
    assert report.model == "gpt-4o-mini-2024-07-18"
    assert any("requested model gpt-4o-mini" in note for note in report.notes)


def test_a_batch_input_given_as_the_results_says_so(seeded, tmp_path):
    inp = hf.write_jsonl(tmp_path / "in.jsonl", [hf.batch_input_line("r1", "q000000")])
    assert detect_format(inp) == "openai-batch"
    refused(seeded, inp, "this is a Batch input file")


def test_a_local_model_path_stays_out_of_the_setting_name(seeded, tmp_path):
    model = "/home/someone/ckpt/llava-ov-7b"
    path = hv.write_lmms_run(tmp_path / "o", "lfvqa", [hf.lmms_eval_line(0, "q000000", "Ann.")],
                             {}, model=model)  # fmt: skip
    report = import_results(seeded, path)
    assert report.setting_id == "lmms-eval:llava-ov-7b:lfvqa"
    assert "/home/someone" not in report.setting_id


def test_an_lm_eval_file_as_lmms_eval_is_refused(seeded, tmp_path):
    path = hv.write_lm_eval_run(tmp_path / "o", mc_lines(), "svqa_mc", "multiple_choice")
    refused(seeded, path, "use --format lm-eval", format="lmms-eval")


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_a_cancelled_inspect_log(seeded, tmp_path, suffix):
    from inspect_ai.log import read_eval_log, write_eval_log

    empty = hf.write_inspect_log(tmp_path / f"empty{suffix}", [])
    log = read_eval_log(str(empty))
    log.status = "cancelled"
    write_eval_log(log, str(empty))
    refused(seeded, empty, "cancelled: the inspect run stopped before any sample finished")

    sample = hf.inspect_sample("s1", "Ann knows.", {"question_id": "q000000"})
    some = hf.write_inspect_log(tmp_path / f"some{suffix}", [sample])
    log = read_eval_log(str(some))
    log.status = "cancelled"
    write_eval_log(log, str(some))
    report = import_results(seeded, some)
    assert report.n_matched == 1
    assert any("ended cancelled" in note for note in report.notes)


@pytest.mark.parametrize(("version", "letter"), [("0.3.41", "B"), ("0.3.162", "B"), (None, "C")])
def test_inspect_parsing_of_the_version_that_wrote_the_log(seeded, tmp_path, version, letter):
    """No scorer recorded an answer: the log's own inspect_ai version's parse_answers decides
    (the first ANSWER line before 0.3.221, the last one since)."""
    reply = "ANSWER: B\nOn reflection, the scene says otherwise.\nANSWER: C"
    sample = hf.inspect_sample("s1", reply, {"mcq_id": "m000000"})
    path = hf.write_inspect_log(tmp_path / "log.eval", [sample], version=version)
    report = import_results(seeded, path)
    assert predictions_of(seeded, report.run_id) == {"m000000": letter}
    (rule,) = report.letter_rules
    assert ("0.3.42+" if version == "0.3.162" else "") in rule


# -- the registry ----------------------------------------------------------------------------------
def test_cli_choices_upload_types_and_doc_come_from_the_registry():
    from data_access.importers.format_doc import format_doc
    from data_access.importers.results.formats import RESULTS_FORMATS
    from pipelines.cli.cmd_import import ResultsFormat
    from pipelines.results.readers import READERS
    from ui.import_panel import UPLOAD_TYPES

    assert set(READERS) == set(RESULTS_FORMATS)
    assert [f.value for f in ResultsFormat] == ["auto", *RESULTS_FORMATS]
    doc = format_doc()
    for spec in RESULTS_FORMATS.values():
        assert spec.doc_row() in doc
        assert set(spec.extensions) <= set(UPLOAD_TYPES)


def test_the_json_report_carries_the_new_fields(seeded, tmp_path, store_path):
    from pipelines.cli import app, load_commands

    load_commands()
    folder = scored_folder(tmp_path)
    result = CliRunner().invoke(
        app, ["import", "results", str(folder), "--dry-run", "--json", "--store", str(store_path)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["link_field"] == "mcq_id"
    assert data["letter_rules"] == {VLMEVAL_JUDGED: [6, 1]}
    assert data["harness_accuracy"] == pytest.approx(4 / 6)
