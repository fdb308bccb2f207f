"""Progress of long work: `pipelines.progress` reports to the installed reporter only, and the
CLI's bars write to stderr."""

from __future__ import annotations

import io

from pipelines.progress import CliBars, report, reporting_to


def test_report_goes_to_the_installed_reporter_only():
    calls = []
    report("nobody listens", 1, 2)
    with reporting_to(lambda *args: calls.append(args)):
        report("encoding", 3, 10)
        report("encoding", 12, 10)  # clamped
        report("empty work", 0, 0)  # nothing to report
    report("after", 1, 1)
    assert calls == [("encoding", 3, 10), ("encoding", 10, 10)]


def test_cli_bars_open_one_bar_per_label_and_close_when_done():
    out = io.StringIO()
    bars = CliBars(out)
    bars("PlotTrees", 0, 3)
    bars("PlotTrees", 3, 3)
    assert bars.bar is None  # finished
    bars("demo steps", 1, 2)
    bars.close()
    text = out.getvalue()
    assert "PlotTrees" in text and "demo steps" in text  # click prints the label off a terminal


def test_bertscore_encoding_reports_its_batches():
    from pipelines.mcq.bertscore import encode_texts

    calls = []
    with reporting_to(lambda *args: calls.append(args)):
        encode_texts([f"text number {i}" for i in range(5)], batch_size=2)
    assert [c[1:] for c in calls] == [(2, 5), (4, 5), (5, 5)]
    assert {c[0] for c in calls} == {"BERTScore: encoding texts"}
