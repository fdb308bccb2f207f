"""`import results`: every harness format read the way its harness writes it (fixtures built to
the writer code, tests/support/harness_fixtures.py), with their odd cases: filtered vs raw
responses, repeated samples, a failed sample, MCQ letters in free text."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_access.importers.results.report import (
    EMPTY_ANSWER,
    HARNESS_ERROR,
    REPEATED_SAMPLE,
    UNKNOWN_ID,
)
from pipelines.results import detect_format, import_results
from tests.support import harness_fixtures as hf


@pytest.fixture
def seeded(store_path, seeded_template):
    return hf.seeded_store_copy(store_path, seeded_template, 6)


def answers_of(store, run_id: str) -> dict[str, str]:
    rows = store.rows("SELECT question_id, text FROM answers WHERE run_id = ?", [run_id])
    return dict(rows)


def predictions_of(store, run_id: str) -> dict[str, tuple]:
    rows = store.rows(
        "SELECT mcq_id, predicted_option, correct FROM mcq_predictions WHERE run_id = ?", [run_id]
    )
    return {mcq: (option, correct) for mcq, option, correct in rows}


# -- lmms-eval -------------------------------------------------------------------------------------
def test_lmms_eval_answers_take_the_filtered_response(seeded, tmp_path):
    lines = [
        hf.lmms_eval_line(0, "q000000", "Raw: Ann thinks the letter is lost.", filtered="Ann"),
        hf.lmms_eval_line(1, "q000001", "Ben knows."),
        hf.lmms_eval_line(2, "q000002", ""),
        hf.lmms_eval_line(3, "nope", "An answer to another benchmark."),
    ]
    path = hf.write_lmms_eval(tmp_path / "out", lines)
    assert detect_format(path) == "lmms-eval"
    report = import_results(seeded, path)
    assert report.kind == "answers"
    assert answers_of(seeded, report.run_id) == {"q000000": "Ann", "q000001": "Ben knows."}
    assert report.unmatched[EMPTY_ANSWER].first_ids == ["2"]
    assert report.unmatched[UNKNOWN_ID].first_ids == ["3"]
    assert report.model == "lmms-lab/llava-onevision-qwen2-7b-ov"
    assert report.model_args == "pretrained=lmms-lab/llava-onevision-qwen2-7b-ov,conv=qwen"
    assert report.task == "storyscope_lfvqa" and report.harness_version == "0.3.0"
    assert report.setting_id == "lmms-eval:lmms-lab/llava-onevision-qwen2-7b-ov:storyscope_lfvqa"
    label = seeded.scalar("SELECT label FROM settings WHERE setting_id = ?", [report.setting_id])
    assert label == "lmms-lab/llava-onevision-qwen2-7b-ov via lmms-eval (storyscope_lfvqa)"


def test_lmms_eval_raw_response_when_the_line_has_no_filtered_one(seeded, tmp_path):
    line = hf.lmms_eval_line(0, "q000000", "Ann knows.")
    line.pop("filtered_resps")
    line["resps"] = [["Ann knows.", "A second sample of a repeats run."]]
    report = import_results(seeded, hf.write_lmms_eval(tmp_path / "out", [line]))
    assert answers_of(seeded, report.run_id) == {"q000000": "Ann knows."}


def test_lmms_eval_mcq_letters_by_its_own_rule(seeded, tmp_path):
    replies = ["The answer is A.", "B", "I pick (C) green", "none of these", "Definitely D"]
    lines = [hf.lmms_eval_line(i, f"m{i:06d}", reply) for i, reply in enumerate(replies)]
    failed = hf.lmms_eval_line(5, "m000005", "timeout")
    failed["success"] = False
    report = import_results(seeded, hf.write_lmms_eval(tmp_path / "out", [*lines, failed]))
    assert report.kind == "predictions"
    # lmms-eval takes the first capital A-E after its prefixes: "none of these" has none
    assert predictions_of(seeded, report.run_id) == {
        "m000000": ("A", True),
        "m000001": ("B", True),
        "m000002": ("C", True),
        "m000003": (None, False),
        "m000004": ("D", False),  # the D of "Definitely": their rule, their false positive
    }
    assert report.n_no_letter == 1
    assert report.unmatched[HARNESS_ERROR].first_ids == ["5"]


def test_lmms_eval_links_by_a_mapped_field(seeded, tmp_path):
    line = hf.lmms_eval_line(0, None, "Ann knows.")
    line["doc"] = {"qid": "q000004"}  # an older lmms-eval kept the doc
    path = hf.write_lmms_eval(tmp_path / "out", [line])
    report = import_results(seeded, path, column_map={"question_id": "doc.qid"}, setting="s1")
    assert answers_of(seeded, report.run_id) == {"q000004": "Ann knows."}


# -- lm-evaluation-harness -------------------------------------------------------------------------
def test_lm_eval_multiple_choice_takes_the_best_loglikelihood(seeded, tmp_path):
    lines = [
        hf.lm_eval_line(0, {"mcq_id": "m000000"}, loglikelihoods=[-0.5, -2.0, -3.0, -4.0]),
        hf.lm_eval_line(1, {"mcq_id": "m000001"}, loglikelihoods=[-2.0, -3.0, -0.1, -4.0]),
    ]
    path = hf.write_lm_eval(tmp_path / "out", lines, "storyvideoqa_mc", "multiple_choice")
    assert detect_format(path) == "lm-eval"
    report = import_results(seeded, path)
    assert predictions_of(seeded, report.run_id) == {
        "m000000": ("A", True),
        "m000001": ("C", False),
    }
    assert report.harness == "lm-evaluation-harness" and report.model == "EleutherAI/pythia-160m"
    assert report.harness_version == "0.4.9"


def test_lm_eval_one_line_per_filter_imports_the_first_filter(seeded, tmp_path):
    doc = {"question_id": "q000000"}
    lines = [
        hf.lm_eval_line(0, doc, reply="Ann knows it.", filter_name="strict-match"),
        hf.lm_eval_line(0, doc, reply="knows", filter_name="flexible-extract"),
    ]
    path = hf.write_lm_eval(tmp_path / "out", lines, "lfvqa_gen", "generate_until")
    report = import_results(seeded, path)
    assert answers_of(seeded, report.run_id) == {"q000000": "Ann knows it."}
    assert report.unmatched[REPEATED_SAMPLE].count == 1


# -- VLMEvalKit ------------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".xlsx", ".tsv"])
def test_vlmevalkit_predictions_by_can_infer(seeded, tmp_path, suffix):
    rows = [
        hf.vlmevalkit_row(0, "m000000", "A"),
        hf.vlmevalkit_row(1, "m000001", "The colour is green."),  # by option text
        hf.vlmevalkit_row(2, "m000002", "A or B, hard to say"),  # two letters: none
        hf.vlmevalkit_row(3, "m000003", "Failed to obtain answer via API."),
    ]
    path = hf.write_vlmevalkit(tmp_path / "out", rows, suffix)
    assert detect_format(path) == "vlmevalkit"
    report = import_results(seeded, path)
    assert predictions_of(seeded, report.run_id) == {
        "m000000": ("A", True),
        "m000001": ("B", True),
        "m000002": (None, False),
    }
    assert report.unmatched[HARNESS_ERROR].first_ids == ["3"]
    assert (report.model, report.task) == ("Qwen2-VL-7B", "StoryVideoQA")


def test_vlmevalkit_folder_prefers_the_scored_result(seeded, tmp_path):
    hf.write_vlmevalkit(tmp_path / "out", [hf.vlmevalkit_row(0, "m000000", "D")])
    hf.write_vlmevalkit(
        tmp_path / "out", [hf.vlmevalkit_row(0, "m000000", "A")], extra="_gpt-4o_result"
    )
    report = import_results(seeded, tmp_path / "out" / "Qwen2-VL-7B")
    assert report.source == "Qwen2-VL-7B_StoryVideoQA_gpt-4o_result.xlsx"
    assert report.task == "StoryVideoQA"
    assert predictions_of(seeded, report.run_id) == {"m000000": ("A", True)}


# -- inspect_ai ------------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_log_through_the_library(seeded, tmp_path, suffix):
    samples = [
        hf.inspect_sample(1, "ANSWER: A", {"mcq_id": "m000000"}),
        hf.inspect_sample(2, "It is green.", {"mcq_id": "m000001"}, score_answer="B"),
        hf.inspect_sample(2, "ANSWER: C", {"mcq_id": "m000001"}, epoch=2),
        hf.inspect_sample(3, "", {"mcq_id": "m000002"}, error="RuntimeError: model crashed"),
        hf.inspect_sample(4, "I am not sure.", {"mcq_id": "m000003"}),
    ]
    path = hf.write_inspect_log(tmp_path / f"log{suffix}", samples, task="svqa_mc")
    assert detect_format(path) == "inspect"
    report = import_results(seeded, path)
    assert predictions_of(seeded, report.run_id) == {
        "m000000": ("A", True),
        "m000001": ("B", True),
        "m000003": (None, False),
    }
    assert report.unmatched[REPEATED_SAMPLE].first_ids == ["2"]
    assert report.unmatched[HARNESS_ERROR].first_ids == ["3"]
    assert report.harness == "inspect_ai"
    assert (report.model, report.task) == ("openai/smollm2", "svqa_mc")
    assert report.harness_version == hf.inspect_version()
    assert report.model_args == '{"base_url": "http://127.0.0.1:8080/v1"}'


def test_inspect_open_ended_answers_link_by_metadata(seeded, tmp_path):
    samples = [
        hf.inspect_sample(f"s{i}", f"Answer {i}.", {"question_id": f"q{i:06d}"}) for i in range(3)
    ]
    report = import_results(seeded, hf.write_inspect_log(tmp_path / "a.eval", samples))
    assert answers_of(seeded, report.run_id) == {f"q{i:06d}": f"Answer {i}." for i in range(3)}


# -- OpenAI Batch ----------------------------------------------------------------------------------
def test_openai_batch_output_alone_links_by_custom_id(seeded, tmp_path):
    out = hf.write_jsonl(
        tmp_path / "batch_out.jsonl",
        [
            hf.batch_output_line("q000001", "Ben knows."),
            hf.batch_output_line("q000000", "Ann knows."),  # any order
            hf.batch_output_line("q000002", None, status=429),
        ],
    )
    assert detect_format(out) == "openai-batch"
    report = import_results(seeded, out)
    assert answers_of(seeded, report.run_id) == {"q000000": "Ann knows.", "q000001": "Ben knows."}
    assert report.unmatched[HARNESS_ERROR].first_ids == ["q000002"]
    assert report.model == "gpt-4o-mini-2024-07-18"


def test_openai_batch_joined_to_its_input(seeded, tmp_path):
    requests = [hf.batch_input_line(f"request-{i}", f"q{i:06d}") for i in range(3)]
    batch_in = hf.write_jsonl(tmp_path / "batch_in.jsonl", requests)
    out = hf.write_jsonl(
        tmp_path / "batch_out.jsonl",
        [hf.batch_output_line(f"request-{i}", f"Reply {i}") for i in (2, 0)],
    )
    report = import_results(seeded, out, batch_input=batch_in)
    assert answers_of(seeded, report.run_id) == {"q000000": "Reply 0", "q000002": "Reply 2"}
    # the model that answered (the replies' snapshot), not the alias the input requested
    assert report.model == "gpt-4o-mini-2024-07-18"
    assert "the input requested model gpt-4o-mini" in "\n".join(report.notes)


# -- table -----------------------------------------------------------------------------------------
def test_table_csv_with_a_column_map(seeded, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("qid,reply\nq000000,Ann knows.\nm000000,x\n", encoding="utf-8")
    report = import_results(
        seeded, path, column_map={"question_id": "qid", "answer": "reply"}, setting="mine"
    )
    assert answers_of(seeded, report.run_id) == {"q000000": "Ann knows."}
    assert report.unmatched["other question kind"].first_ids == ["m000000"]


def test_table_parquet_and_jsonl_with_an_option_column(seeded, tmp_path):
    parquet = tmp_path / "preds.parquet"
    pq.write_table(pa.table({"mcq_id": ["m000000", "m000001"], "option": ["a", "C"]}), parquet)
    report = import_results(seeded, parquet, setting="p")
    assert predictions_of(seeded, report.run_id) == {
        "m000000": ("A", True),
        "m000001": ("C", False),
    }
    jsonl = hf.write_jsonl(tmp_path / "t.jsonl", [{"question_id": "q000003", "response": "Yes."}])
    report = import_results(seeded, jsonl, format="table", setting="t")
    assert answers_of(seeded, report.run_id) == {"q000003": "Yes."}
