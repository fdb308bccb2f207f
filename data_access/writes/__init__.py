"""Each table family's write path, and the reads its pipelines need of it.

Writers take the caller's cursor, so a whole run's rows land in one transaction; every row
points to the run that made it (`runs`).

- provenance and work: `runs`, `jobs`, `scale_units` (scaled batches' ledger), `llm_log`
  (cache and call log), `llm_modes` (structured-output mode per endpoint).
- datasets and films: `dataset_ids` (one id, one dataset), `films`, `scene_summaries`.
- LF-VideoQA: `judging` (slices, judges, claim verdicts), `review` (human labels, question
  decisions, tags), `agreement_labels`, `judge_evals`, `beliefs`, `qgen`.
- StoryVideoQA: `mcq`, `plottree`, `vectors` (float16 vectors in BLOBs).

Import the module you need: `from data_access.writes import runs`.
"""
