"""The `judge` job kind: `start_job(store, "judge", JudgeOptions(...).params())`."""

from __future__ import annotations

from pipelines.judge.run import JudgeOptions, run_judge


def run_judge_job(ctx) -> str | None:
    """Run (or resume) a judge job; returns "stopped" when it ended early."""
    summary = run_judge(ctx.store, JudgeOptions.from_params(ctx.params), ctx)
    ctx.extra["summary"] = summary
    return "stopped" if summary["stopped"] else None
