"""The agents' evidence trail (m1100): tool calls and how each agent question ended, written by
StoryScope's agent loop and by an imported harness log alike."""

from __future__ import annotations

import json

import duckdb
import pandas as pd

from data_access.store import append_table

STEP_COLUMNS = (
    "run_id",
    "setting_id",
    "question_id",
    "turn",
    "call_index",
    "tool",
    "arguments",
    "intervals",
    "result_chars",
    "result_text",
    "error",
)
ANSWER_COLUMNS = (
    "run_id",
    "setting_id",
    "question_id",
    "answer_id",
    "tier",
    "outcome",
    "turns",
    "tool_calls",
    "prompt_tokens",
    "completion_tokens",
    "tool_mode",
    "failure",
)


def _json_or_none(value) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def write_trail(cursor: duckdb.DuckDBPyConnection, steps: list[dict], answers: list[dict]) -> None:
    """Write tool-call rows (`STEP_COLUMNS`; `arguments` and `intervals` as Python values) and
    agent answer rows (`ANSWER_COLUMNS`); a row written again (a resumed run) replaces itself."""
    if steps:
        rows = [
            dict(
                row,
                arguments=_json_or_none(row.get("arguments")),
                intervals=json.dumps([list(span) for span in row.get("intervals") or ()]),
            )
            for row in steps
        ]
        _append(cursor, "agent_steps", pd.DataFrame(rows, columns=list(STEP_COLUMNS)))
    if answers:
        _append(cursor, "agent_answers", pd.DataFrame(answers, columns=list(ANSWER_COLUMNS)))


def _append(cursor: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame) -> None:
    append_table(cursor, table, frame, conflict="replace")
