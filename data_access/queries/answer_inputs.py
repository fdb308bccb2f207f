"""Reads of answers StoryScope produced in a setting, and of what each model was given (m1000)."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store
from data_access.tables.answering import INPUT_COLUMNS


def setting_row(store: Store, setting_id: str) -> dict | None:
    """The `settings` row of `setting_id`, or None."""
    frame = store.df("SELECT * FROM settings WHERE setting_id = ?", [setting_id])
    return None if frame.empty else frame.iloc[0].to_dict()


def answered_questions(store: Store, setting_id: str) -> set[str]:
    """Questions that already have an answer in the setting (a rerun resumes after them)."""
    frame = store.df("SELECT DISTINCT question_id FROM answers WHERE setting_id = ?", [setting_id])
    return set(frame.question_id)


def answer_inputs_of(store: Store, answer_ids: list[str]) -> pd.DataFrame:
    """What the model was given for each of `answer_ids` (rows of `answer_inputs`, with the
    question's film_id)."""
    columns = ", ".join(f"i.{c}" for c in INPUT_COLUMNS)
    return store.df(
        f"SELECT {columns}, q.film_id FROM answer_inputs i JOIN questions q USING (question_id)"
        " WHERE list_contains(?, i.answer_id) ORDER BY i.question_id",
        [list(answer_ids)],
    )


def inputs_of_setting(store: Store, setting_id: str) -> pd.DataFrame:
    """Every input record of a setting (answered and failed), newest run first per question."""
    return store.df(
        f"SELECT {', '.join(INPUT_COLUMNS)} FROM answer_inputs WHERE setting_id = ?"
        " ORDER BY question_id, run_id DESC",
        [setting_id],
    )
