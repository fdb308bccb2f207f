"""`import results` over the real StoryVideoQA golden questions (../shared/data): a VLMEvalKit
prediction file of the Movie questions, letters in free text, imported as predictions whose
accuracy by topic on Distributions is the one computed here from the file."""

from __future__ import annotations

from collections import defaultdict

import pytest

from data_access.queries import distributions_view
from pipelines.results import import_results
from tests.support import harness_fixtures as hf
from tests.support.mcq_records import LETTERS, golden_records, load_records

pytestmark = pytest.mark.realdata


def _row(index: int, record: dict) -> tuple[list, bool]:
    """A VLMEvalKit row for the record: right on even rows, the next letter on odd ones."""
    n = len(record["choices"])
    right = index % 2 == 0
    letter = record["option"] if right else LETTERS[(LETTERS.index(record["option"]) + 1) % n % 5]
    options = [*record["choices"], *[None] * 5][:5]  # one real question has six choices
    return [index, record["mcq_id"], record["question"], *options, record["option"],
            f"Answer: ({letter})"], right  # fmt: skip


def test_vlmevalkit_predictions_on_the_real_golden_questions(store, shared_data, tmp_path):
    records = golden_records(shared_data, ("Movie",))
    assert len(records) > 100
    load_records(store, records)
    rows, expected = [], defaultdict(list)
    for index, record in enumerate(records):
        row, right = _row(index, record)
        rows.append(row)
        expected[(record["question_type"], record["story_element"])].append(right)
    columns = ["index", "mcq_id", "question", *LETTERS, "answer", "prediction"]
    path = hf.write_vlmevalkit(
        tmp_path / "out", rows, ".tsv", dataset="StoryVideoQA_Movie", columns=columns
    )
    report = import_results(store, path, setting="qwen2-vl")
    assert (report.n_samples, report.n_matched, report.kind) == (len(records), len(records),
                                                                 "predictions")  # fmt: skip
    topic = distributions_view.accuracy_by_topic(store)
    got = {
        (r.question_type, r.story_element): r.accuracy
        for r in topic[topic["method"] == "qwen2-vl"].itertuples()
    }
    want = {key: 100.0 * sum(v) / len(v) for key, v in expected.items()}
    assert got == pytest.approx(want)


def test_vlmevalkit_scored_folder_on_the_real_golden_questions(store, shared_data, tmp_path):
    """A VLMEvalKit run folder (`T<date>_G<commit>`) scored by its judge: replies shaped
    "['B']" that its exact matching cannot read, so the judge's reading is in `log` and the
    outcome in `hit`; StoryScope's accuracy must be the one the run's `_acc.csv` states."""
    from tests.support import harness_versions as hv

    records = golden_records(shared_data, ("Movie",))
    load_records(store, records)
    folder = hv.vlmevalkit_run_folder(tmp_path / "outputs", "Qwen2-VL-7B", "dated")
    rows, hits = [], []
    for index, record in enumerate(records):
        row, right = _row(index, record)
        letter = row[-1][-2]  # the letter inside "Answer: (X)"
        judged = index % 3 != 2  # every third reply the judge too failed to read: wrong
        hit = int(right and judged)
        log = letter if judged else "Failed to predict, thus randomly generate one"
        rows.append([*row[:-1], f"['{letter}']", hit, f"Match Log: {log}. "])
        hits.append(hit)
    columns = ["index", "mcq_id", "question", *LETTERS, "answer", "prediction", "hit", "log"]
    stem = "Qwen2-VL-7B_StoryVideoQA_Movie"
    hv.write_xlsx(folder / f"{stem}_openai_result.xlsx", columns, rows)
    stated = sum(hits) / len(hits)
    (folder / f"{stem}_acc.csv").write_text(f"split,Overall\nnone,{stated}\n")
    report = import_results(store, folder, setting="qwen2-vl-judged")
    assert report.n_matched == len(records) and report.harness_version == "git 1ff966c3"
    accuracy = store.scalar(
        "SELECT avg(CASE WHEN correct THEN 1.0 ELSE 0.0 END) FROM mcq_predictions WHERE run_id = ?",
        [report.run_id],
    )
    assert accuracy == pytest.approx(stated) == pytest.approx(report.harness_accuracy)
    assert 0.2 < stated < 0.5
