"""The rollup tables' SQL (data_access.rollups.freshness): what each table holds and the scope it is
recomputed by. Both the full refresh (rollups) and the incremental update
(rollups_incremental) read it from here, so neither has to import the other's module.
"""

from __future__ import annotations

# Per (judge, answer): the inputs of LF-VideoQA Eq. 1 (§3.3: |K|, |C|, |A ∩ C|, |A|, |X| and how
# many claims were judged) with the answer's question, setting, type and film, from the current
# verdicts. The one definition the Verdicts page, `storyscope metrics` and the `metrics` export
# read (through data_access.rollups.source), so they agree by construction. Gold self-checks
# (answers `gold:<question>`, no row in `answers`) are left out by the join.
_ANSWER_VERDICTS = """
    WITH rubric AS (
        SELECT question_id, count(*) AS n_claims, count(*) FILTER (role = 'core') AS n_core
        FROM rubric_claims GROUP BY 1
    ),
    judged AS (
        SELECT v.judge_id, v.answer_id, count(*) AS n_judged,
               count(*) FILTER (v.verdict = 'asserted') AS n_asserted,
               count(*) FILTER (v.verdict = 'contradicted') AS n_contradicted,
               count(*) FILTER (v.verdict = 'asserted' AND c.role = 'core') AS n_core_asserted
        FROM {verdicts} v JOIN rubric_claims c USING (claim_id)
        WHERE {answers}
        GROUP BY v.judge_id, v.answer_id
    )
    SELECT j.judge_id, a.answer_id, a.question_id, a.setting_id,
           coalesce(s.label, a.setting_id) AS setting_label, q.qtype, q.film_id, r.n_claims,
           r.n_core, j.n_judged, j.n_asserted, j.n_contradicted, j.n_core_asserted
    FROM judged j JOIN answers a USING (answer_id)
    JOIN questions q ON q.question_id = a.question_id
    JOIN rubric r ON r.question_id = a.question_id
    LEFT JOIN settings s ON s.setting_id = a.setting_id
"""

# Current verdicts with the film of their answer (NULL when the answer is not a stored model
# answer: such items count only in the all-films slice, as in the live queries).
_FILM_VERDICTS = """
    v AS (SELECT v.answer_id, v.claim_id, v.judge_id, v.verdict, q.film_id
          FROM {verdicts} v LEFT JOIN answers a USING (answer_id)
          LEFT JOIN questions q ON q.question_id = a.question_id
          WHERE {films})
"""

_CONFUSIONS_BY_FILM = f"""
    WITH {_FILM_VERDICTS}
    SELECT a.film_id, a.judge_id AS judge_a, b.judge_id AS judge_b, a.verdict AS verdict_a,
           b.verdict AS verdict_b, count(*) AS n
    FROM v a JOIN v b
      ON a.answer_id = b.answer_id AND a.claim_id = b.claim_id AND a.judge_id < b.judge_id
    GROUP BY ALL
"""

_PATTERNS_BY_FILM = f"""
    WITH {_FILM_VERDICTS},
    units AS (
        SELECT answer_id, claim_id, any_value(film_id) AS film_id,
               count(*) FILTER (verdict = 'asserted') AS asserted,
               count(*) FILTER (verdict = 'contradicted') AS contradicted,
               count(*) FILTER (verdict = 'omitted') AS omitted,
               count(*) FILTER (verdict NOT IN ('asserted', 'contradicted', 'omitted')) AS other
        FROM v GROUP BY answer_id, claim_id
    )
    SELECT film_id, asserted, contradicted, omitted, other, count(*) AS items
    FROM units GROUP BY ALL
"""

# Per method (each question's prediction from the method's latest finished run that answered
# it: a method answered one video per run is counted over every video), MCQ set, source, topic
# and current difficulty bin: predictions, scored predictions and correct ones.
_MCQ_ACCURACY = """
    WITH latest AS (
        SELECT p.mcq_id, p.method, arg_max(p.run_id, r.started_at) AS run_id
        FROM mcq_predictions p JOIN runs r USING (run_id)
        WHERE r.status = 'finished' AND {methods} GROUP BY p.mcq_id, p.method
    )
    SELECT p.method, q.set_name, q.source, q.question_type, q.story_element, d.bin,
           count(*) AS n, count(p.correct) AS n_scored,
           coalesce(sum(p.correct::INT), 0) AS n_correct
    FROM {predictions} JOIN mcq_questions q USING (mcq_id)
    LEFT JOIN current_mcq_difficulty d USING (mcq_id)
    GROUP BY ALL
"""

# table -> (its SQL, the scope it is recomputed by). Each SQL has one scope placeholder
# ({answers}, {films} or {methods}), a predicate that is TRUE for a full refresh and names the
# touched keys for an incremental one (data_access.rollups.incremental), and the verdict ones
# read the current verdicts from {verdicts}.
_TABLES = {
    "rollup_answer_verdicts": (_ANSWER_VERDICTS, "answers"),
    "rollup_agreement_confusions": (_CONFUSIONS_BY_FILM, "films"),
    "rollup_agreement_patterns": (_PATTERNS_BY_FILM, "films"),
    "rollup_mcq_accuracy": (_MCQ_ACCURACY, "methods"),
}
ROLLUP_TABLES = tuple(_TABLES)
# The current verdicts are resolved once per refresh into this temp table (three rollups read
# them; resolving `current_claim_verdicts` is most of each one's cost).
CURRENT_VERDICTS = "_rollup_current_verdicts"
EVERYTHING = {"answers": "TRUE", "films": "TRUE", "methods": "TRUE", "verdicts": CURRENT_VERDICTS}
# the same rows computed live by a reader while the rollups are stale (data_access.rollups.source)
LIVE = {**EVERYTHING, "verdicts": "current_claim_verdicts"}


# The predictions the MCQ rollup counts: per question and method, the latest finished run's. A
# scope may replace it with plain `mcq_predictions p` when one finished run holds every
# prediction.
LATEST_PREDICTIONS = "mcq_predictions p JOIN latest USING (mcq_id, method, run_id)"


def rollup_select(table: str, scope: dict[str, str]) -> str:
    """The SELECT that computes `table`'s rows, restricted by `scope` (see _TABLES)."""
    select, _ = _TABLES[table]
    return select.format(**{"predictions": LATEST_PREDICTIONS, **scope})


def scoped_current_verdicts(predicate: str) -> str:
    """`current_claim_verdicts` (migration 2: per judge, answer and claim, the row of the latest
    finished run) for the verdicts matching `predicate` only. The view resolves every verdict of
    the store before a filter on it applies (8M at ten times the paper: seconds), so a reader of
    a few answers or claims resolves them alone; the groups are the view's, so the rows are."""
    return f"""
    WITH scoped AS (SELECT * FROM claim_verdicts WHERE {predicate})
    SELECT v.* FROM scoped v JOIN (
        SELECT v.judge_id, v.answer_id, v.claim_id, arg_max(v.run_id, r.started_at) AS run_id
        FROM scoped v JOIN runs r USING (run_id) WHERE r.status = 'finished'
        GROUP BY v.judge_id, v.answer_id, v.claim_id
    ) latest USING (judge_id, answer_id, claim_id, run_id)
    """
