"""The claim judge (LF-VideoQA §3.3, App. F.2): `openai` (any OpenAI-compatible endpoint, via
the gateway) or the offline `lexical` judge; gold self-check mode.

    from pipelines.judge import JudgeOptions, run_judge, dry_run
    summary = run_judge(store, JudgeOptions(backend="lexical", where={"films": ["f1"]}))

As a background job: `pipelines.jobs.start_job(store, "judge", JudgeOptions(...).params())`.
"""

import importlib

# Loaded on first use (PEP 562): a page that needs only `pipelines.judge.explain` must not pay
# for the run's imports (the gateway, the HTTP clients, Ray): 2 s of CPU per app session.
_EXPORTS = {
    "JudgeOptions": "pipelines.judge.run",
    "dry_run": "pipelines.judge.run",
    "load_slice": "pipelines.judge.run",
    "run_judge": "pipelines.judge.run",
    "LexicalMatcher": "pipelines.judge.lexical",
    "lexical_measures": "pipelines.judge.lexical",
    "PROMPT_VERSION": "pipelines.judge.prompt",
    "PROMPT_VERSIONS": "pipelines.judge.prompt",
    "judge_messages": "pipelines.judge.prompt",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
