"""One module per table family: its write path, and the reads its pipelines need of it.

A family's reads stay beside its writes (a pipeline that appends beliefs also reads the film's
current ones), so a pipeline imports one module per family; what the pages and the commands that
only read show lives in `data_access.queries`. Module names are unique across `data_access`, so
no caller needs an alias.

Writers take the caller's cursor, so a whole run's rows land in one transaction; every row
points to the run that made it (`runs`); rows built in Python go in through
`data_access.store.append_rows`.

- provenance and work: `runs`, `job_records`, `unit_ledger` (scaled batches' ledger),
  `llm_log` (cache and call log), `llm_modes` (structured-output mode per endpoint).
- datasets and films: `dataset_ids` (one id, one dataset), `films`, `scene_summaries`,
  `video_captions`.
- LF-VideoQA: `judging` (slices, judges, claim verdicts), `answering` (answers StoryScope
  produced), `agent_steps` (the agents' tool calls), `review_labels` (human labels, question
  decisions, tags), `agreement_labels`, `judge_evals`, `gold_evals`, `belief_records`,
  `qgen_records`.
- StoryVideoQA: `mcq`, `plottree_records`, `vectors` (float16 vectors in BLOBs).

Import the module you need: `from data_access.tables import runs`.
"""
