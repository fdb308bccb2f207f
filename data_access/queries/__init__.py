"""The read side: one `<page>_view` module per page, and the reads of the commands that only read.

- pages: `overview_view`, `film_view`, `ingest_view` (how a film was timed), `beliefs_view`,
  `questions_view`, `verdicts_view`, `distributions_view`, `plottree_view`, `qlab_view`
  (Question Lab), `review_view`, `runs_view`; the agents' evidence trail, `agent_trail_view`.
- `verdict_counts`: per-answer claim counts, the inputs of Eq. 1 (Verdicts, Metrics, export).
- `stats` (`storyscope stats`, the pages' cache token), `gold_eval_inputs`, `task_questions`
  (`export-task`), `export_rows` (`storyscope export`, download buttons), `heaviest` (the page
  benchmark's heaviest view); what the settings and agents read: `film_context`,
  `answer_inputs`, `agent_index`.

Names are unique across `data_access`: `from data_access.queries import verdicts_view`.
"""
