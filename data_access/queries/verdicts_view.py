"""Queries of the Verdicts page: judge runs, the claims × settings grid of one question, answers
side by side, per-answer verdict counts for metrics, verdict pairs for agreement, run diffs."""

from __future__ import annotations

import pandas as pd

from data_access.rollups.source import source
from data_access.rollups.sql import scoped_current_verdicts
from data_access.store import Store


def judge_runs(store: Store, film_id: str | None = None) -> pd.DataFrame:
    """Finished runs that graded model answers (on this film's questions), newest first, labelled.

    Human review saves (step `review.verdicts`, one run per save of a few labels) are left out
    too: the newest of them would become the grid's default run; humans are compared with the
    judges in the Agreement view instead (data_access.queries.review_view).
    Gold self-check runs (step `judge.gold`) grade the reference answers, not the settings'
    answers, so they are left out: picked by default as the newest run, they showed an empty grid.
    """
    # all films: the per-run verdict counts (the catalogue rollup: 8M verdicts grouped per view
    # at 10x otherwise); one film: that film's verdicts, which no rollup counts
    slice_sql = (
        f"SELECT run_id, judge_id, verdicts FROM {source(store, 'rollup_run_verdicts')}"
        if film_id is None
        else _FILM_RUN_VERDICTS
    )
    return store.df(
        f"""
        WITH slice AS ({slice_sql})
        SELECT r.run_id, s.judge_id, r.backend, r.model, r.status, r.started_at, s.verdicts,
               s.judge_id || ' · ' || coalesce(r.backend, '?') || coalesce(' ' || r.model, '')
                 || ' · ' || strftime(r.started_at, '%Y-%m-%d %H:%M:%S') AS label
        FROM slice s JOIN runs r USING (run_id)
        WHERE r.status = 'finished' AND r.step NOT IN ('judge.gold', 'review.verdicts')
        ORDER BY r.started_at DESC
        """,
        [] if film_id is None else [film_id],
    )


_FILM_RUN_VERDICTS = """
    SELECT v.run_id, any_value(v.judge_id) AS judge_id, count(*) AS verdicts
    FROM claim_verdicts v
    WHERE v.answer_id IN (
        SELECT a.answer_id FROM answers a JOIN questions q USING (question_id) WHERE q.film_id = ?)
    GROUP BY v.run_id
"""


def verdict_grid(store: Store, question_id: str, run_id: str) -> pd.DataFrame:
    """Every (claim, setting) of one question with the verdict one judge run gave (NULL: none):
    a run of the judge's history.

    Columns: ord, role, claim, setting_id, setting, answer_id, verdict, rationale.
    """
    verdicts = "SELECT * FROM claim_verdicts WHERE run_id = $run"
    return _grid(store, verdicts, {"question": question_id, "run": run_id})


def judge_grid(store: Store, question_id: str, judge_id: str) -> pd.DataFrame:
    """Every (claim, setting) of one question with the judge's current verdict (per claim and
    answer, the row of its latest finished run that judged it; NULL: never judged), so a run
    that judged only some answers (e.g. newly imported ones) leaves the others as they were.

    Columns: as `verdict_grid`.
    """
    verdicts = scoped_current_verdicts(
        "judge_id = $judge"
        " AND claim_id IN (SELECT claim_id FROM rubric_claims WHERE question_id = $question)"
    )
    return _grid(store, verdicts, {"question": question_id, "judge": judge_id})


def _grid(store: Store, verdicts: str, params: dict) -> pd.DataFrame:
    """The claims × settings rows of question $question with the verdicts in `verdicts`."""
    with store.session() as cursor:
        return cursor.execute(
            f"""
            SELECT c.ord, c.role, c.text AS claim, s.setting_id, s.label AS setting,
                   a.answer_id, v.verdict, v.rationale
            FROM rubric_claims c
            JOIN answers a ON a.question_id = c.question_id
            JOIN settings s USING (setting_id)
            LEFT JOIN ({verdicts}) v ON v.answer_id = a.answer_id AND v.claim_id = c.claim_id
            WHERE c.question_id = $question
            ORDER BY s.label, c.ord
            """,
            params,
        ).df()


def answers_of_question(store: Store, question_id: str) -> pd.DataFrame:
    """The answers to one question, one per setting."""
    return store.df(
        "SELECT a.answer_id, a.setting_id, s.label AS setting, s.source, a.text FROM answers a"
        " JOIN settings s USING (setting_id) WHERE a.question_id = ? ORDER BY s.label",
        [question_id],
    )


# A slice of the Eq. 1 inputs (rollup_answer_verdicts): judge, film (or all), types and settings
# (empty = any).
_ROLLUP_SLICE = (
    "judge_id = ? AND (? IS NULL OR film_id = ?) AND (len(?) = 0 OR list_contains(?, qtype))"
    " AND (len(?) = 0 OR list_contains(?, setting_id))"
)


def answer_counts(
    store: Store,
    judge_id: str,
    film_id: str | None = None,
    qtypes: tuple[str, ...] = (),
    settings: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Per answer in the slice: rubric size, core size and the judge's current asserted /
    contradicted counts — the inputs of LF-VideoQA Eq. 1, in the column layout of
    `data_access.queries.verdict_counts` so `pipelines.metrics` scores them; scoped by film, type
    and setting in the store, so a page never pulls the whole verdict table.
    """
    params = [judge_id, film_id, film_id, list(qtypes), list(qtypes), list(settings)]
    # unordered (the metrics group and sort) and through Arrow: a paper-scale judge has 200K rows
    return store.df_arrow(
        f"SELECT {_ANSWER_COUNT_COLUMNS} FROM {source(store, 'rollup_answer_verdicts')}"
        f" WHERE {_ROLLUP_SLICE}",
        [*params, list(settings)],
    )


_ANSWER_COUNT_COLUMNS = (
    "answer_id, question_id, setting_id, setting_label, qtype, film_id, n_claims, n_core,"
    " n_judged, n_asserted, n_contradicted, n_core_asserted"
)


# Above this many judged answers the Verdicts page computes a slice's metrics only on request:
# their bootstrap (pipelines.metrics) is one questions × settings product per pool, so it grows
# with both (1.3 s for a paper-scale judge's 200K answers, ~70 s for 2.1M at ten times the
# paper); the page asks for a film, types or settings first.
LARGE_SLICE_ANSWERS = 500_000


def slice_answers(
    store: Store,
    judge_id: str,
    film_id: str | None = None,
    qtypes: tuple[str, ...] = (),
    settings: tuple[str, ...] = (),
) -> int:
    """How many answers `answer_counts` returns for this slice (counted in the store)."""
    params = [judge_id, film_id, film_id, list(qtypes), list(qtypes), list(settings)]
    return store.scalar(
        f"SELECT count(*) FROM {source(store, 'rollup_answer_verdicts')} WHERE {_ROLLUP_SLICE}",
        [*params, list(settings)],
    )


def judge_ids(store: Store) -> pd.DataFrame:
    """Judges with verdicts, with their kind/backend/model (labels for the selectors)."""
    # the per-judge verdict counts (data_access.rollups.catalogue)
    return store.df(
        "SELECT j.judge_id, j.kind, j.backend, j.model FROM judges j"
        f" WHERE EXISTS (SELECT 1 FROM {source(store, 'rollup_judge_verdicts')} v"
        " WHERE v.verdicts > 0 AND v.judge_id = j.judge_id) ORDER BY j.judge_id"
    )


def agreement_confusions(store: Store, film_id: str | None = None) -> pd.DataFrame:
    """For every pair of judges, counts of (verdict by a, verdict by b) on the (answer, claim)
    items both judged — Cohen's κ needs no more, so 800k verdicts never leave the store."""
    return store.df(
        "SELECT judge_a, judge_b, verdict_a, verdict_b, sum(n)::BIGINT AS n"
        f" FROM {source(store, 'rollup_agreement_confusions')}"
        " WHERE ? IS NULL OR film_id = ? GROUP BY ALL ORDER BY ALL",
        [film_id, film_id],
    )


def agreement_patterns(store: Store, film_id: str | None = None) -> pd.DataFrame:
    """Items grouped by how many judges gave each verdict (one row per distinct count pattern,
    with its multiplicity) — all Krippendorff's α (nominal) needs."""
    return store.df(
        "SELECT asserted, contradicted, omitted, other, sum(items)::BIGINT AS items"
        f" FROM {source(store, 'rollup_agreement_patterns')}"
        " WHERE ? IS NULL OR film_id = ? GROUP BY ALL ORDER BY ALL",
        [film_id, film_id],
    )


def settings_list(store: Store) -> pd.DataFrame:
    """Settings (id, label) for the selectors."""
    return store.df("SELECT setting_id, label, source FROM settings ORDER BY label")


def run_diff(store: Store, run_a: str, run_b: str) -> pd.DataFrame:
    """Claims judged by both runs whose verdict differs (the flipped claims), with context."""
    return store.df(
        """
        SELECT q.question_id, q.qtype, s.label AS setting, c.ord, c.role, c.text AS claim,
               a.verdict AS verdict_a, b.verdict AS verdict_b
        FROM claim_verdicts a
        JOIN claim_verdicts b
          ON b.run_id = ? AND b.answer_id = a.answer_id AND b.claim_id = a.claim_id
        JOIN answers ans ON ans.answer_id = a.answer_id
        JOIN questions q ON q.question_id = ans.question_id
        JOIN settings s ON s.setting_id = ans.setting_id
        JOIN rubric_claims c ON c.claim_id = a.claim_id
        WHERE a.run_id = ? AND a.verdict <> b.verdict
        ORDER BY q.question_id, s.label, c.ord
        """,
        [run_b, run_a],
    )


def run_overlap(store: Store, run_a: str, run_b: str) -> int:
    """How many (answer, claim) items both runs judged."""
    return int(
        store.scalar(
            "SELECT count(*) FROM claim_verdicts a JOIN claim_verdicts b"
            " ON b.run_id = ? AND b.answer_id = a.answer_id AND b.claim_id = a.claim_id"
            " WHERE a.run_id = ?",
            [run_b, run_a],
        )
        or 0
    )


def reported_core_counts(store: Store, question_id: str) -> pd.DataFrame:
    """The paper's judge's counts for one question's answers, where the paper printed them
    (App. H, Tables 9–14: core claims asserted per setting). The transcription
    (samples/lfvqa_paper) names the question and the core size in each row's note
    ("of 2 core; question <id>; ..."), since reported_results has no question column.

    Columns: setting_id, table_ref, core_asserted, core (NULL when the note gives none).
    """
    return store.df(
        "SELECT setting_id, table_ref, value::INT AS core_asserted,"
        " TRY_CAST(regexp_extract(note, 'of (\\d+) core', 1) AS INT) AS core"
        " FROM reported_results WHERE metric = 'core_asserted' AND setting_id IS NOT NULL"
        " AND regexp_extract(note, 'question ([^;]+);', 1) = ? ORDER BY setting_id",
        [question_id],
    )


def reported_figures(store: Store) -> pd.DataFrame:
    """Figures transcribed from the papers (reported_results), for side-by-side display."""
    return store.df(
        "SELECT table_ref, setting_label, setting_id, qtype, metric, value, ci_halfwidth"
        " FROM reported_results ORDER BY table_ref, setting_label, qtype, metric"
    )


def answered_questions(
    store: Store, film_id: str | None = None, qtypes: tuple[str, ...] = (), limit: int = 500
) -> pd.DataFrame:
    """Questions that have answers (the Verdicts page's question picker), richest first: most
    answers, then most rubric claims, so the page opens on the most instructive question."""
    # ranked on the per-question counts (data_access.rollups.catalogue) with the film and type
    # of each question, then the texts of the picked ones only: read for every question, the
    # texts were most of the cost at 10x (63k questions)
    return store.df(
        "WITH picked AS (SELECT r.question_id, r.answers, r.claims"
        f" FROM {source(store, 'rollup_question_answers')} r"
        " JOIN questions s USING (question_id)"
        " WHERE r.answers > 0 AND (? IS NULL OR s.film_id = ?)"
        " AND (len(?) = 0 OR list_contains(?, s.qtype))"
        " ORDER BY r.answers DESC, r.claims DESC, r.question_id LIMIT ?)"
        " SELECT q.question_id, q.qtype, q.center, q.text FROM picked p"
        " JOIN questions q USING (question_id)"
        " ORDER BY p.answers DESC, p.claims DESC, q.question_id",
        [film_id, film_id, list(qtypes), list(qtypes), limit],
    )


def latest_run_of_judge(store: Store, judge_id: str, film_id: str | None = None) -> str | None:
    """The newest finished run that graded model answers for `judge_id` (on this film's
    questions): the baseline of a rerun. Gold self-checks (step `judge.gold`, answers
    `gold:<question>`) and review saves are left out, as in `judge_runs`: diffed against a
    self-check, a rerun shared no claim with it and reported "flipped 0 of 0"."""
    return store.scalar(
        """
        SELECT r.run_id FROM runs r
        WHERE r.status = 'finished' AND r.step NOT IN ('judge.gold', 'review.verdicts')
          AND r.run_id IN (
            SELECT DISTINCT v.run_id FROM claim_verdicts v JOIN answers a USING (answer_id)
            JOIN questions q USING (question_id)
            WHERE v.judge_id = ? AND (? IS NULL OR q.film_id = ?))
        ORDER BY r.started_at DESC LIMIT 1
        """,
        [judge_id, film_id, film_id],
    )


# the columns of the Verdicts page's "why" table, in its order
JUDGEMENT_COLUMNS = (
    "ord", "role", "claim", "setting_id", "setting", "answer_id", "judge_id", "kind", "backend",
    "verdict", "rationale",
)  # fmt: skip


def claim_judgements(store: Store, question_id: str) -> pd.DataFrame:
    """Every judge's current verdict on every (claim, answer) of one question, with its stored
    rationale: the gold, offline, imported (the paper's) and human judges side by side.

    Columns: ord, role, claim, setting_id, setting, answer_id, judge_id, kind, backend, verdict,
    rationale.
    """
    # the current verdicts of this question's claims only: through current_claim_verdicts every
    # verdict of the store was resolved first (8 s at ten times the paper, 80 ms at 1x)
    verdicts = scoped_current_verdicts(
        "claim_id IN (SELECT claim_id FROM rubric_claims WHERE question_id = $question)"
    )
    with store.session() as cursor:
        judged = cursor.execute(
            f"""
            SELECT c.ord, c.role, c.text AS claim, v.answer_id, v.judge_id, j.kind, j.backend,
                   v.verdict, v.rationale
            FROM ({verdicts}) v
            JOIN rubric_claims c USING (claim_id)
            LEFT JOIN judges j ON j.judge_id = v.judge_id
            WHERE c.question_id = $question
            """,
            {"question": question_id},
        ).df()
        # their answers looked up by key (the primary key's index: 2-3 ms), where a join read
        # all 2.1M answers of a 10x store (28 -> 74 ms for the page's "why" table)
        answered = cursor.execute(
            """
            SELECT a.answer_id, a.setting_id, s.label AS setting
            FROM answers a JOIN settings s ON s.setting_id = a.setting_id
            WHERE a.answer_id IN (SELECT unnest($answers::VARCHAR[]))
            """,
            {"answers": judged["answer_id"].unique().tolist()},
        ).df()
    rows = judged.merge(answered, on="answer_id", validate="many_to_one")
    rows = rows.sort_values(["ord", "setting", "judge_id"], kind="stable", ignore_index=True)
    return rows[list(JUDGEMENT_COLUMNS)]
