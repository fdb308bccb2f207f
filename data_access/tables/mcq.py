"""Query and write functions for StoryVideoQA multiple-choice questions (mcq_* tables).

Readers return DataFrames; writers take the caller's cursor so they run inside the caller's
transaction (a bad record rolls the whole import back). Lists (choices, characters, times) come
back as Python lists; reviewer checks come back as JSON text, parsed by pipelines.mcq.reviewers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import duckdb
import pandas as pd

from data_access.store import Store, append_table

MCQ_COLUMNS = (
    "mcq_id, dataset_id, set_name, source, vid, qid, question, choices, gt, option,"
    " question_type, story_element, characters, locations, times, evidence_seconds,"
    " gemini_check, claude_check, gpt_check"
)


def mcq_questions(
    store: Store, set_name: str | None = None, source: str | None = None
) -> pd.DataFrame:
    """MCQs, optionally of one set (golden / generated / ...) and one source (Friends, ...)."""
    return store.df(
        f"SELECT {MCQ_COLUMNS} FROM mcq_questions"
        " WHERE (? IS NULL OR set_name = ?) AND (? IS NULL OR source = ?)"
        " ORDER BY source, vid, qid, mcq_id",
        [set_name, set_name, source, source],
    )


def mcq_options(cursor: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """mcq_id -> ground-truth option letter, read inside the caller's transaction."""
    return dict(cursor.execute("SELECT mcq_id, option FROM mcq_questions").fetchall())


def insert_mcq_questions(
    cursor: duckdb.DuckDBPyConnection, records: Iterable[dict], run_id: str
) -> int:
    """Insert MCQ rows (keys named as the mcq_questions columns); return how many.

    Used for questions StoryScope makes itself (StoryMindv2 generation, test fixtures); the
    released golden set is imported by `storyscope import storyvideoqa`.
    """
    columns = [
        "mcq_id",
        "dataset_id",
        "set_name",
        "source",
        "vid",
        "qid",
        "question",
        "choices",
        "gt",
        "option",
        "question_type",
        "story_element",
        "characters",
        "locations",
        "times",
        "evidence_seconds",
        "gemini_check",
        "claude_check",
        "gpt_check",
        "extra",
        "run_id",
    ]
    rows = [
        [
            r["mcq_id"],
            r.get("dataset_id", "storyvideoqa"),
            r.get("set_name", "generated"),
            r["source"],
            r["vid"],
            r.get("qid"),
            r["question"],
            [str(c) for c in r["choices"]],
            r["gt"],
            r["option"],
            r.get("question_type"),
            r.get("story_element"),
            [str(c) for c in r.get("characters") or []],
            [str(c) for c in r.get("locations") or []],
            [str(c) for c in r.get("times") or []],
            r.get("evidence_seconds"),
            _json_or_none(r.get("gemini_check")),
            _json_or_none(r.get("claude_check")),
            _json_or_none(r.get("gpt_check")),
            _json_or_none(r.get("extra")),
            run_id,
        ]
        for r in records
    ]
    if rows:
        frame = pd.DataFrame(rows, columns=columns)
        append_table(
            cursor, "mcq_questions", frame.astype({"qid": "Int64", "evidence_seconds": "float64"})
        )
    return len(rows)


def _json_or_none(value) -> str | None:
    return None if value is None else json.dumps(value)


# -- difficulty (StoryVideoQA §3.4) -----------------------------------------------------------
def insert_difficulty(cursor: duckdb.DuckDBPyConnection, frame: pd.DataFrame, run_id: str) -> int:
    """Write one run's difficulty rows (columns mcq_id, d_q, d_a, d_qa, d, bin)."""
    columns = ["mcq_id", "d_q", "d_a", "d_qa", "d", "bin"]
    out = frame[columns].copy()
    out["bin"] = out["bin"].astype("Int64")
    out["run_id"] = run_id
    if len(out):
        append_table(cursor, "mcq_difficulty", out)
    return len(out)


def current_difficulty(store: Store, set_name: str | None = None) -> pd.DataFrame:
    """The latest finished difficulty of each MCQ with its topic, source and video."""
    return store.df(
        "SELECT d.mcq_id, d.d_q, d.d_a, d.d_qa, d.d, d.bin, d.run_id, q.source, q.vid,"
        " q.set_name, q.question_type, q.story_element"
        " FROM current_mcq_difficulty d JOIN mcq_questions q USING (mcq_id)"
        " WHERE (? IS NULL OR q.set_name = ?) ORDER BY q.source, q.vid, q.qid",
        [set_name, set_name],
    )


# -- predictions -------------------------------------------------------------------------------
def insert_predictions(cursor: duckdb.DuckDBPyConnection, rows: list[tuple], run_id: str) -> int:
    """Write (mcq_id, method, predicted_option, correct) rows under one run."""
    if rows:
        frame = pd.DataFrame(rows, columns=["mcq_id", "method", "predicted_option", "correct"])
        frame["run_id"] = run_id
        append_table(cursor, "mcq_predictions", frame)
    return len(rows)


def latest_predictions(store: Store) -> pd.DataFrame:
    """Per (mcq_id, method) the prediction of the latest finished run, with topic and source."""
    return store.df(
        "WITH ranked AS ("
        "  SELECT p.*, row_number() OVER (PARTITION BY p.mcq_id, p.method"
        "    ORDER BY r.started_at DESC) AS k"
        "  FROM mcq_predictions p JOIN runs r USING (run_id) WHERE r.status = 'finished')"
        " SELECT ranked.mcq_id, ranked.method, ranked.predicted_option, ranked.correct,"
        " q.source, q.vid, q.question_type, q.story_element"
        " FROM ranked JOIN mcq_questions q USING (mcq_id) WHERE k = 1",
    )


# -- StoryMindv2 stage outputs (m0501) ---------------------------------------------------------
def insert_run_rows(
    cursor: duckdb.DuckDBPyConnection, table: str, rows: list[dict], run_id: str
) -> int:
    """Write dict rows (keys = `table` columns) under one run; `table` is a module constant."""
    if rows:
        frame = pd.DataFrame(rows)
        frame["run_id"] = run_id
        append_table(cursor, table, frame)
    return len(rows)


def insert_storymind_items(cursor: duckdb.DuckDBPyConnection, rows: list[dict], run_id: str) -> int:
    """Write stage rows (vid, batch, stage, item_id, topic, payload as JSON text)."""
    return insert_run_rows(cursor, "storymind_items", rows, run_id)


def storymind_faults(store: Store, vid: str) -> pd.DataFrame:
    """The fault archive of one video across runs (QAs the supervisor deleted), with vectors."""
    return store.df(
        "SELECT i.item_id, i.payload, e.vector FROM storymind_items i"
        " LEFT JOIN embeddings e ON e.run_id = i.run_id AND e.item_kind = 'fault'"
        "   AND e.item_id = i.item_id"
        " WHERE i.vid = ? AND i.stage = 'supervisor_deleted' ORDER BY i.created_at, i.item_id",
        [vid],
    )


def insert_fault_vectors(
    cursor: duckdb.DuckDBPyConnection, item_ids: list[str], vectors, model: str, run_id: str
) -> None:
    """Store the embeddings of archived faults (item_kind 'fault')."""
    if item_ids:
        append_table(
            cursor,
            "embeddings",
            pd.DataFrame(
                {
                    "run_id": run_id,
                    "item_kind": "fault",
                    "item_id": item_ids,
                    "model": model,
                    "vector": [list(map(float, v)) for v in vectors],
                }
            ),
        )


def storymind_stage_counts(store: Store, run_id: str) -> dict[str, int]:
    """Rows per stage of one StoryMindv2 run."""
    return dict(
        store.rows(
            "SELECT stage, count(*) FROM storymind_items WHERE run_id = ?"
            " GROUP BY stage ORDER BY stage",
            [run_id],
        )
    )
