"""The read side: one module per page, and the reads of the commands that only read.

- pages: `overview`, `film`, `ingest` (how a film was timed), `beliefs`, `questions`,
  `verdicts`, `distributions`, `plottree`, `qlab` (Question Lab), `review`, `runs`.
- `verdict_counts`: per-answer claim counts, the inputs of Eq. 1 (Verdicts, Metrics, export).
- `stats` (`storyscope stats`, the pages' cache token), `gold_eval`, `task_questions`
  (`export-task`), `export` (`storyscope export`, download buttons), `heaviest` (the page
  benchmark's heaviest view).

Import the module you need: `from data_access.queries import verdicts as views_verdicts`.
"""
