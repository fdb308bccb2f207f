"""The `answer` job kind: `start_job(store, "answer", AnswerOptions(...).params())`."""

from __future__ import annotations

from pipelines.answer.options import AnswerOptions
from pipelines.answer.run import answer_questions


def run_answer_job(ctx) -> str | None:
    """Run (or resume) an answer job; returns "stopped" when it ended early."""
    summary = answer_questions(ctx.store, AnswerOptions.from_params(ctx.params), ctx)
    ctx.extra["summary"] = summary
    return "stopped" if summary["stopped"] else None
