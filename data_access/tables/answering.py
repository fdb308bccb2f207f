"""Answers StoryScope produced in an LF-VideoQA setting, and what each model was given.

The `settings` row names the setting (source, answerer, captioner, tier); `answers` holds the
replies as ordinary answers (so `judge`, Verdicts, Compare and `metrics` work on them unchanged);
`answer_inputs` records, per question, what the model saw (m1000).
"""

from __future__ import annotations

import json

import duckdb
import pandas as pd

from data_access.store import append_table

INPUT_COLUMNS = (
    "run_id",
    "question_id",
    "setting_id",
    "answer_id",
    "source",
    "est_tokens",
    "budget_tokens",
    "units_total",
    "units_kept",
    "text_chars",
    "frame_times",
    "covered",
    "cut_rule",
    "build_ms",
)


class SettingTaken(ValueError):
    """The setting id exists and holds answers of another source or model."""


def ensure_setting(cursor: duckdb.DuckDBPyConnection, row: dict) -> None:
    """Create the setting, or check that the existing one is the same setting.

    Raises:
        SettingTaken: a setting of that id exists with another source, answerer or captioner.
    """
    found = cursor.execute(
        "SELECT source, answerer, captioner, tier FROM settings WHERE setting_id = ?",
        [row["setting_id"]],
    ).fetchone()
    if found is None:
        cursor.execute(
            "INSERT INTO settings (setting_id, source, answerer, captioner, tier, label, run_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [row[k] for k in ("setting_id", "source", "answerer", "captioner", "tier", "label")]
            + [row["run_id"]],
        )
        return
    wanted = (row["source"], row["answerer"], row["captioner"], row["tier"])
    if tuple(found) != wanted:
        raise SettingTaken(
            f"setting {row['setting_id']!r} already holds answers of source={found[0]!r},"
            f" answerer={found[1]!r}; choose another --setting-name"
        )


def write_answers(
    cursor: duckdb.DuckDBPyConnection, answers: list[dict], inputs: list[dict]
) -> None:
    """Append answers (answer_id, question_id, setting_id, text, run_id) and their input rows."""
    if answers:
        frame = pd.DataFrame(
            answers, columns=["answer_id", "question_id", "setting_id", "text", "run_id"]
        )
        append_table(cursor, "answers", frame)
    if inputs:
        frame = pd.DataFrame(
            [dict(row, covered=json.dumps(row.get("covered") or [])) for row in inputs],
            columns=list(INPUT_COLUMNS),
        )
        frame["frame_times"] = frame["frame_times"].astype(object)
        append_table(cursor, "answer_inputs", frame, conflict="replace")
