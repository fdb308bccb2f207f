"""Bring your results: one harness's per-sample outputs in as answers or MCQ predictions.

`import_results` reads a results file the way its harness writes it (one reader module per
harness in this package), links each sample to a question or MCQ already in the store and writes
them through the importers' write path (data_access/importers/results/) as one setting, in one
transaction. The Runs page's upload panel and `storyscope import results` both call it.

    from pipelines.results import import_results
    report = import_results(store, "out/llava/2026-01-01T00-00_samples_lfvqa.jsonl")
    report.n_matched, report.unmatched  # counts, first ids and reasons of samples left out
"""

from __future__ import annotations

from data_access.importers.results.report import ResultsReport, Unmatched
from pipelines.results.api import FORMATS, detect_format, import_results, open_results

__all__ = [
    "FORMATS",
    "ResultsReport",
    "Unmatched",
    "detect_format",
    "import_results",
    "open_results",
]
