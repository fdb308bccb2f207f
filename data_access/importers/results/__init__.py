"""Results from evaluation harnesses in: the write path behind `pipelines.results.import_results`.

- `samples`: the records a harness reader yields (`ResultSample`, `HarnessRun`, `OpenedResults`);
- `write_results`: stage, link and write them as answers or MCQ predictions, in one transaction;
- `ResultsReport`: what was (or would be) imported, and why each sample left out was.
"""

from data_access.importers.results.report import ResultsReport, Unmatched
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from data_access.importers.results.write import write_results

__all__ = [
    "HarnessRun",
    "OpenedResults",
    "ResultSample",
    "ResultsReport",
    "Unmatched",
    "write_results",
]
