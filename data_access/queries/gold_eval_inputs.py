"""Queries behind `storyscope gold-eval`: a backend's stored output on a film next to the gold
annotation of that film. Runs append, so both sides are read by run, not through the
"current" views (which show whichever of the two was written last)."""

from __future__ import annotations

import pandas as pd

from data_access.store import Store
from data_access.tables.gold_evals import EVAL_STEP

GOLD_STEP = "import.gold"
_BELIEF_COLUMNS = (
    "belief_id, holder, scene_index, kind, content, coalesce(basis, []) AS basis,"
    " coalesce(is_false, false) AS is_false, believed, revises, revised_at_scene"
)


def _latest_run(
    store: Store, table: str, film_id: str, step: str, backend: str | None
) -> str | None:
    return store.scalar(
        f"SELECT arg_max(r.run_id, r.started_at) FROM runs r"
        f" WHERE r.status = 'finished' AND r.step = ? AND (? IS NULL OR r.backend = ?)"
        f" AND EXISTS (SELECT 1 FROM {table} t WHERE t.run_id = r.run_id AND t.film_id = ?)",
        [step, backend, backend, film_id],
    )


def gold_run(store: Store, film_id: str) -> str | None:
    """The latest finished gold import holding belief records of `film_id`."""
    return _latest_run(store, "beliefs", film_id, GOLD_STEP, None)


def belief_run(store: Store, film_id: str, backend: str) -> str | None:
    """The latest finished `beliefs annotate` run of `backend` on `film_id`."""
    return _latest_run(store, "beliefs", film_id, "beliefs.annotate", backend)


def beliefs_of_run(store: Store, film_id: str, run_id: str) -> pd.DataFrame:
    """The belief rows one run wrote for one film."""
    return store.df(
        f"SELECT {_BELIEF_COLUMNS} FROM beliefs WHERE film_id = ? AND run_id = ?"
        " ORDER BY holder, scene_index, belief_id",
        [film_id, run_id],
    )


def generated_questions(store: Store, film_id: str, backend: str) -> pd.DataFrame:
    """Questions of the latest finished generation run of `backend` on `film_id`."""
    run_id = store.scalar(
        "SELECT arg_max(run_id, started_at) FROM runs WHERE status = 'finished'"
        " AND step = 'qgen.generate' AND backend = ? AND source = ?",
        [backend, film_id],
    )
    return store.df(
        "SELECT question_id, qtype, text, gold, ? AS run_id FROM questions"
        " WHERE film_id = ? AND run_id = ? ORDER BY question_id",
        [run_id, film_id, run_id],
    )


def gold_questions(store: Store, film_id: str) -> pd.DataFrame:
    """The gold questions of `film_id` (written by a gold import)."""
    return store.df(
        "SELECT q.question_id, q.qtype, q.text, q.gold FROM questions q JOIN runs r USING (run_id)"
        " WHERE q.film_id = ? AND r.step = ? ORDER BY q.question_id",
        [film_id, GOLD_STEP],
    )


def verdict_pairs(
    store: Store, film_id: str, judge_id: str, gold_judge: str = "gold"
) -> pd.DataFrame:
    """Per claim of every answer on the film's questions: the judge's and the gold verdict."""
    return store.df(
        "SELECT g.answer_id, g.claim_id, c.role, g.verdict AS gold, j.verdict AS judged"
        " FROM current_claim_verdicts g"
        " JOIN answers a ON a.answer_id = g.answer_id"
        " JOIN questions q ON q.question_id = a.question_id"
        " JOIN rubric_claims c ON c.claim_id = g.claim_id"
        " LEFT JOIN current_claim_verdicts j"
        "   ON j.answer_id = g.answer_id AND j.claim_id = g.claim_id AND j.judge_id = ?"
        " WHERE g.judge_id = ? AND q.film_id = ? ORDER BY g.answer_id, g.claim_id",
        [judge_id, gold_judge, film_id],
    )


def latest_gold_eval(store: Store, film_id: str) -> dict | None:
    """The newest stored gold-eval result of `film_id` (None when gold-eval never ran)."""
    import json

    raw = store.scalar(
        "SELECT arg_max(params, started_at) FROM runs"
        " WHERE step = ? AND source = ? AND status = 'finished'",
        [EVAL_STEP, film_id],
    )
    return json.loads(raw) if raw else None
