"""Answering LF-VideoQA questions in a setting (§4): `storyscope answer` and the `answer` job.

from pipelines.answer import AnswerOptions, answer_questions, dry_run

The names are loaded on first use (PEP 562): the agent loop imports `pipelines.answer.options`,
and `pipelines.answer.run` imports the agent loop, so importing the package must not import
`run` first.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AnswerOptions", "answer_questions", "dry_run"]


def __getattr__(name: str) -> Any:
    if name == "AnswerOptions":
        from pipelines.answer.options import AnswerOptions

        return AnswerOptions
    if name in ("answer_questions", "dry_run"):
        from pipelines.answer import run

        return getattr(run, name)
    raise AttributeError(f"module 'pipelines.answer' has no attribute {name!r}")
