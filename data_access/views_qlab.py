"""Queries of the Question Lab page over the question-check and analytics tables of m0400:
check runs, failures with reasons, leak scores, name-budget violations, near-duplicate pairs,
the 2-D question map, Self-BLEU and opening frames. Every query is scoped to one run."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def check_runs(store: Store) -> pd.DataFrame:
    """Runs that checked questions, newest first, with pass counts."""
    return store.df(
        """
        SELECT c.run_id, r.step, r.backend, r.started_at, count(*) AS questions,
               count(*) FILTER (c.passed) AS passed, any_value(c.checks_version) AS checks_version
        FROM question_check_results c JOIN runs r USING (run_id)
        WHERE r.status = 'finished' GROUP BY ALL ORDER BY r.started_at DESC
        """
    )


def failure_counts(store: Store, run_id: str) -> pd.DataFrame:
    """Failed questions per check in one run."""
    return store.df(
        "SELECT check_name, count(*) AS failures FROM question_check_failures WHERE run_id = ?"
        " GROUP BY 1 ORDER BY failures DESC, check_name",
        [run_id],
    )


def check_failures(store: Store, run_id: str, checks: tuple[str, ...] = (), limit: int = 500) -> pd.DataFrame:
    """Failed checks of one run with the reason and the question text."""
    return store.df(
        "SELECT f.question_id, q.qtype, f.check_name, f.reason, r.leak_score, q.text"
        " FROM question_check_failures f LEFT JOIN questions q USING (question_id)"
        " LEFT JOIN question_check_results r ON r.run_id = f.run_id AND r.question_id = f.question_id"
        " WHERE f.run_id = ? AND (len(?) = 0 OR list_contains(?, f.check_name))"
        " ORDER BY f.question_id, f.check_name LIMIT ?",
        [run_id, list(checks), list(checks), limit],
    )


def check_results(store: Store, run_id: str) -> pd.DataFrame:
    """Per question of one check run: type, passed, leak score, anchor words, name violations."""
    return store.df(
        "SELECT question_id, qtype, passed, leak_score, anchor_words,"
        " array_to_string(coalesce(name_violations, []), ', ') AS name_violations"
        " FROM question_check_results WHERE run_id = ? ORDER BY question_id",
        [run_id],
    )


def analytics_runs(store: Store) -> pd.DataFrame:
    """Runs that stored question analytics (diversity rows or a question map)."""
    return store.df(
        """
        SELECT a.run_id, r.step, r.started_at FROM (
            SELECT DISTINCT run_id FROM question_diversity
            UNION SELECT DISTINCT run_id FROM embeddings WHERE item_kind = 'question' AND x IS NOT NULL
        ) a JOIN runs r USING (run_id) WHERE r.status = 'finished' ORDER BY r.started_at DESC
        """
    )


def near_duplicates(store: Store, run_id: str, limit: int = 200) -> pd.DataFrame:
    """Near-duplicate pairs of a run, most similar first, with both questions' texts."""
    return store.df(
        "SELECT d.cosine, d.question_a, qa.text AS text_a, d.question_b, qb.text AS text_b"
        " FROM question_near_duplicates d LEFT JOIN questions qa ON qa.question_id = d.question_a"
        " LEFT JOIN questions qb ON qb.question_id = d.question_b"
        " WHERE d.run_id = ? ORDER BY d.cosine DESC LIMIT ?",
        [run_id, limit],
    )


def question_map(store: Store, run_id: str, check_run_id: str | None) -> pd.DataFrame:
    """2-D points of a run's question embeddings with type, text and check status."""
    return store.df(
        """
        SELECT e.item_id AS question_id, e.x, e.y, e.model, q.qtype, q.status, q.text,
               CASE WHEN c.passed IS NULL THEN 'not checked' WHEN c.passed THEN 'passed'
                    ELSE 'failed' END AS check_status
        FROM embeddings e LEFT JOIN questions q ON q.question_id = e.item_id
        LEFT JOIN question_check_results c ON c.run_id = ? AND c.question_id = e.item_id
        WHERE e.run_id = ? AND e.item_kind = 'question' AND e.x IS NOT NULL
        """,
        [check_run_id, run_id],
    )


def diversity(store: Store, run_id: str) -> pd.DataFrame:
    """Self-BLEU-2/4 per question type of a run ('*' = all questions)."""
    return store.df(
        "SELECT qtype, n_questions, self_bleu_2, self_bleu_4 FROM question_diversity WHERE run_id = ?"
        " ORDER BY qtype = '*' DESC, qtype",
        [run_id],
    )


def opening_frames(store: Store, run_id: str, qtype: str = "*") -> pd.DataFrame:
    """The most frequent opening frames of one type in a run."""
    return store.df(
        "SELECT n_words, frame, count, share FROM question_opening_frames WHERE run_id = ? AND qtype = ?"
        " ORDER BY n_words, count DESC, frame",
        [run_id, qtype],
    )
