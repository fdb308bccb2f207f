"""Queries of the Question Lab page: what a generation or check run found, per run.

Every function takes a run id (from `qgen_runs`) and returns a DataFrame ready for a table or a
viz builder; nothing is recomputed here (UMAP points, Self-BLEU and frames were stored with the
run).
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


def qgen_runs(store: Store) -> pd.DataFrame:
    """Generation and check runs, newest first, with backend, status and counts."""
    return store.df(
        "SELECT run_id, step, backend, model, prompt_version, source, status, started_at,"
        " n_items, n_failed, prompt_tokens, completion_tokens, cost_usd FROM runs"
        " WHERE step IN ('qgen.generate', 'qgen.check') ORDER BY started_at DESC"
    )


def check_runs(store: Store) -> pd.DataFrame:
    """Finished runs that checked questions, newest first, with pass counts (the page's picker)."""
    return store.df(
        """
        SELECT c.run_id, r.step, r.backend, r.started_at, count(*) AS questions,
               count(*) FILTER (c.passed) AS passed,
               any_value(c.checks_version) AS checks_version
        FROM question_check_results c JOIN runs r USING (run_id)
        WHERE r.status = 'finished' GROUP BY ALL ORDER BY r.started_at DESC
        """
    )


def analytics_runs(store: Store) -> pd.DataFrame:
    """Finished runs that stored question analytics (diversity rows or a question map)."""
    return store.df(
        """
        SELECT a.run_id, r.step, r.started_at FROM (
            SELECT DISTINCT run_id FROM question_diversity
            UNION SELECT DISTINCT run_id FROM embeddings
            WHERE item_kind = 'question' AND x IS NOT NULL
        ) a JOIN runs r USING (run_id) WHERE r.status = 'finished' ORDER BY r.started_at DESC
        """
    )


def check_results(store: Store, run_id: str) -> pd.DataFrame:
    """Per question: passed, leak score, anchor words and rivals, name-budget violations,
    the failed checks with reasons (joined by '; '), and the question text."""
    return store.df(
        """
        SELECT r.question_id, r.source, r.film_id, r.qtype, r.passed, r.leak_score,
               r.anchor_words, r.anchor_rivals, r.name_violations, q.text, q.status,
               string_agg(f.check_name || ': ' || f.reason, '; ' ORDER BY f.check_name)
                   AS failures
        FROM question_check_results r
        LEFT JOIN questions q USING (question_id)
        LEFT JOIN question_check_failures f
          ON f.run_id = r.run_id AND f.question_id = r.question_id
        WHERE r.run_id = ?
        GROUP BY ALL ORDER BY r.passed, r.leak_score DESC NULLS LAST, r.question_id
        """,
        [run_id],
    )


def check_failures(
    store: Store, run_id: str, checks: tuple[str, ...] = (), limit: int | None = None
) -> pd.DataFrame:
    """One row per failed check: question, check name, reason (only `checks` when given; at
    most `limit` rows, for the page)."""
    return store.df(
        "SELECT f.question_id, f.check_name, f.reason, q.qtype, q.text"
        " FROM question_check_failures f"
        " LEFT JOIN questions q USING (question_id) WHERE f.run_id = ?"
        " AND (len(?) = 0 OR list_contains(?, f.check_name))"
        " ORDER BY f.check_name, f.question_id" + (" LIMIT ?" if limit is not None else ""),
        [run_id, list(checks), list(checks)] + ([limit] if limit is not None else []),
    )


def failure_counts(store: Store, run_id: str) -> pd.DataFrame:
    """How many questions failed each check."""
    return store.df(
        "SELECT check_name, count(*) AS n FROM question_check_failures WHERE run_id = ?"
        " GROUP BY check_name ORDER BY n DESC, check_name",
        [run_id],
    )


def name_budget_violations(store: Store, run_id: str) -> pd.DataFrame:
    """Questions that use names the film never speaks aloud."""
    return store.df(
        "SELECT r.question_id, r.qtype, r.name_violations, q.text FROM question_check_results r"
        " LEFT JOIN questions q USING (question_id)"
        " WHERE r.run_id = ? AND len(coalesce(r.name_violations, [])) > 0"
        " ORDER BY r.question_id",
        [run_id],
    )


def near_duplicate_pairs(store: Store, run_id: str) -> pd.DataFrame:
    """Near-duplicate pairs with both texts and their cluster, most similar first."""
    return store.df(
        """
        SELECT d.question_a, qa.text AS text_a, d.question_b, qb.text AS text_b, d.cosine,
               c.cluster_id, c.cluster_size
        FROM question_near_duplicates d
        LEFT JOIN questions qa ON qa.question_id = d.question_a
        LEFT JOIN questions qb ON qb.question_id = d.question_b
        LEFT JOIN question_clusters c ON c.run_id = d.run_id AND c.question_id = d.question_a
        WHERE d.run_id = ? ORDER BY d.cosine DESC
        """,
        [run_id],
    )


def umap_points(store: Store, run_id: str) -> pd.DataFrame:
    """2-D points of the run's questions with type, status, check outcome and cluster."""
    return store.df(
        """
        SELECT e.item_id AS question_id, e.x, e.y, e.model AS projection, q.qtype, q.status,
               q.text, r.passed, r.leak_score, c.cluster_id, c.cluster_size
        FROM embeddings e
        LEFT JOIN questions q ON q.question_id = e.item_id
        LEFT JOIN question_check_results r ON r.run_id = e.run_id AND r.question_id = e.item_id
        LEFT JOIN question_clusters c ON c.run_id = e.run_id AND c.question_id = e.item_id
        WHERE e.run_id = ? AND e.item_kind = 'question' ORDER BY e.item_id
        """,
        [run_id],
    )


def question_map(store: Store, run_id: str, check_run_id: str | None) -> pd.DataFrame:
    """2-D points of an analytics run's questions coloured by the outcome of a *chosen* check
    run (`umap_points` joins the analytics run's own checks), with type and text."""
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


def self_bleu(store: Store, run_id: str) -> pd.DataFrame:
    """Self-BLEU-2/4 (%) per question type ('*' = all), StoryMindv2 Table 2's measure."""
    return store.df(
        "SELECT qtype, n_questions, self_bleu_2, self_bleu_4 FROM question_diversity"
        " WHERE run_id = ? ORDER BY qtype = '*' DESC, qtype",
        [run_id],
    )


def opening_frames(store: Store, run_id: str, n_words: int = 3) -> pd.DataFrame:
    """Most frequent opening frames per type (first n words after the anchor)."""
    return store.df(
        "SELECT qtype, frame, count, share FROM question_opening_frames"
        " WHERE run_id = ? AND n_words = ? ORDER BY qtype, count DESC, frame",
        [run_id, n_words],
    )


def opening_frames_of_type(store: Store, run_id: str, qtype: str = "*") -> pd.DataFrame:
    """The most frequent opening frames of one type ('*' = all questions), every frame length."""
    return store.df(
        "SELECT n_words, frame, count, share FROM question_opening_frames"
        " WHERE run_id = ? AND qtype = ?"
        " ORDER BY n_words, count DESC, frame",
        [run_id, qtype],
    )


def discard_counts(store: Store, run_id: str) -> pd.DataFrame:
    """Context-sets per discard rule of App. F.1 ('kept' for those that survived), per type."""
    return store.df(
        "SELECT qtype, coalesce(discard_reason, 'kept') AS outcome, count(*) AS n"
        " FROM context_sets WHERE run_id = ? GROUP BY ALL ORDER BY qtype, outcome",
        [run_id],
    )


def outcomes(store: Store, run_id: str) -> pd.DataFrame:
    """Final status of each sampled question with its retirement rule and reason."""
    return store.df(
        """
        SELECT o.question_id, o.final_status, o.retire_rule, o.retire_reason, o.distractor,
               o.revised, o.revision_note, c.qtype, c.center, c.anchor_scene, q.text, q.gold
        FROM qgen_outcomes o JOIN context_sets c USING (context_set_id)
        LEFT JOIN questions q USING (question_id)
        WHERE o.run_id = ? ORDER BY o.final_status, c.qtype, o.question_id
        """,
        [run_id],
    )


def stage_outputs(store: Store, run_id: str, question_id: str) -> pd.DataFrame:
    """Every stage's reply for one question (parsed payload, or raw text when malformed)."""
    return store.df(
        "SELECT stage, status, backend, payload, raw_reply FROM qgen_stage_outputs"
        " WHERE run_id = ? AND question_id = ? ORDER BY stage",
        [run_id, question_id],
    )
