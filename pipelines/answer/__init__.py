"""Answering LF-VideoQA questions in a setting (§4): `storyscope answer` and the `answer` job.

from pipelines.answer import AnswerOptions, answer_questions, dry_run
"""

from pipelines.answer.options import AnswerOptions
from pipelines.answer.run import answer_questions, dry_run

__all__ = ["AnswerOptions", "answer_questions", "dry_run"]
