"""The claim judge (LF-VideoQA §3.3, App. F.2): `openai` (any OpenAI-compatible endpoint, via
the gateway) or the offline `lexical` judge; gold self-check mode.

    from pipelines.judge import JudgeOptions, run_judge, dry_run
    summary = run_judge(store, JudgeOptions(backend="lexical", where={"films": ["f1"]}))

As a background job: `pipelines.jobs.start_job(store, "judge", JudgeOptions(...).params())`.
"""

from pipelines.judge.lexical import LexicalMatcher, lexical_measures
from pipelines.judge.prompt import PROMPT_VERSION, PROMPT_VERSIONS, judge_messages
from pipelines.judge.run import JudgeOptions, dry_run, load_slice, run_judge

__all__ = [
    "JudgeOptions",
    "LexicalMatcher",
    "PROMPT_VERSION",
    "PROMPT_VERSIONS",
    "dry_run",
    "judge_messages",
    "lexical_measures",
    "load_slice",
    "run_judge",
]
