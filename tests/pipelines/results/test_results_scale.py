"""`import results` streams: a 100k-sample file is read record by record and staged in bounded
batches, so the import's Python memory stays a small fraction of the file, and an inspect log is
read sample by sample instead of whole (tracemalloc peaks, relative to the file or to the
harness's own whole-log reader measured in the same test; no wall-clock limits)."""

from __future__ import annotations

import tracemalloc

from pipelines.results import import_results
from tests.support import harness_fixtures as hf


def traced_peak(call) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_100k_sample_lmms_eval_file_is_streamed(store, tmp_path):
    hf.seed_store(store, tmp_path / "seed", n_questions=200, n_mcqs=0)
    path = hf.write_lmms_eval(tmp_path / "out", hf.many_lmms_lines(100_000, 200))
    report, peak = traced_peak(lambda: import_results(store, path))
    assert (report.n_samples, report.n_matched) == (100_000, 200)
    unknown = report.unmatched["unknown id"]
    assert unknown.count == 99_800 and unknown.first_ids == [str(i) for i in range(200, 205)]
    assert store.scalar("SELECT count(*) FROM answers WHERE run_id = ?", [report.run_id]) == 200
    assert peak < path.stat().st_size / 4, (peak, path.stat().st_size)


def test_an_inspect_log_is_read_sample_by_sample(store, tmp_path):
    from inspect_ai.log import read_eval_log

    hf.seed_store(store, tmp_path / "seed", n_questions=2, n_mcqs=1000)
    path = hf.write_big_inspect_log(tmp_path / "big.eval", 1000)
    _, whole = traced_peak(lambda: read_eval_log(str(path)))
    report, streamed = traced_peak(lambda: import_results(store, path))
    assert report.n_matched == 1000 and report.kind == "predictions"
    accuracy = store.scalar(
        "SELECT avg(correct::INT) FROM mcq_predictions WHERE run_id = ?", [report.run_id]
    )
    assert accuracy == 1.0  # the replies cycle A-D like the gold options
    assert streamed < whole / 3, (streamed, whole)
