"""Judges scored against human labels (table `judge_evals`, written by `storyscope judge-eval`)."""

from __future__ import annotations

import json
import uuid

import pandas as pd

from data_access.store import Store


def record_judge_eval(store: Store, benchmark: str, judge: str, figures: dict) -> str:
    """Store one evaluation (`figures`: JudgeEval.as_json() plus an optional run_id)."""
    eval_id = f"{benchmark}-{uuid.uuid4().hex[:12]}"
    with store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO judge_evals (eval_id, benchmark, judge, backend, n_summaries,"
            " n_sentences, kappa, accuracy, balanced_accuracy, failed, anchors, run_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                eval_id,
                benchmark,
                judge,
                figures["backend"],
                figures["n_summaries"],
                figures["n_sentences"],
                figures["kappa"],
                figures.get("accuracy"),
                figures["balanced_accuracy"],
                figures.get("failed", 0),
                json.dumps(figures.get("anchors", [])),
                figures.get("run_id"),
            ],
        )
    return eval_id


def latest_judge_evals(store: Store, benchmark: str) -> pd.DataFrame:
    """The newest evaluation of each judge on a benchmark (empty before the first)."""
    return store.df(
        "SELECT judge, backend, n_summaries, n_sentences, kappa, accuracy, balanced_accuracy,"
        " failed, anchors, created_at FROM judge_evals WHERE benchmark = ?"
        " QUALIFY row_number() OVER (PARTITION BY judge ORDER BY created_at DESC) = 1"
        " ORDER BY balanced_accuracy DESC",
        [benchmark],
    )
