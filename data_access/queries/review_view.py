"""Queries of human review: the review queue, each judge against the humans (per
claim role and question type), the claims a judge and a human disagree on, a reviewer's labels,
error-tag counts per setting, reject reasons per generator run and check, and automatic checks
beside human decisions.

Human judges are the judges whose id starts with `human:` (data_access.tables.review_labels).
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store

_HUMAN = "human:%"

# Current machine verdicts on model answers in the slice, with the claim and its question.
_SLICE_ITEMS = """
    items AS (
        SELECT v.answer_id, v.claim_id, v.judge_id, v.verdict, a.question_id, a.setting_id,
               q.qtype, q.film_id, c.ord, c.role
        FROM current_claim_verdicts v JOIN answers a USING (answer_id)
        JOIN questions q ON q.question_id = a.question_id
        JOIN rubric_claims c ON c.claim_id = v.claim_id
        WHERE v.judge_id NOT LIKE 'human:%'
          AND (? IS NULL OR q.film_id = ?) AND (len(?) = 0 OR list_contains(?, q.qtype))
          AND (len(?) = 0 OR list_contains(?, a.setting_id))
    )
"""


def _slice_params(film_id, qtypes, settings) -> list:
    return [film_id, film_id, list(qtypes), list(qtypes), list(settings), list(settings)]


def review_queue(
    store: Store,
    reviewer_judge: str,
    film_id: str | None = None,
    qtypes: tuple[str, ...] = (),
    settings: tuple[str, ...] = (),
    limit: int = 50,
) -> pd.DataFrame:
    """(answer, claim) items the reviewer has not labelled, the most contested first.

    Order: judges' disagreement (1 − share of the most common verdict) first, then whether a
    judge of the item also failed this claim on the question's own gold answer (the gold
    self-check, LF-VideoQA App. F.2: a rubric claim the reference answer does not assert is
    suspect), then more judges, then question, setting and claim order.

    Columns: answer_id, claim_id, question_id, setting_id, qtype, ord, role, judges, verdicts
    (judge=verdict; ...), disagreement, gold_disagrees.
    """
    return store.df(
        f"""
        WITH {_SLICE_ITEMS},
        gold AS (
            SELECT g.claim_id, g.judge_id FROM current_claim_verdicts g
            WHERE g.answer_id LIKE 'gold:%' AND g.verdict <> 'asserted'
        ),
        tops AS (
            SELECT answer_id, claim_id, max(n)::DOUBLE AS top FROM (
                SELECT answer_id, claim_id, verdict, count(*) AS n FROM items GROUP BY ALL)
            GROUP BY ALL
        ),
        units AS (
            SELECT i.answer_id, i.claim_id, any_value(i.question_id) AS question_id,
                   any_value(i.setting_id) AS setting_id, any_value(i.qtype) AS qtype,
                   any_value(i.ord) AS ord, any_value(i.role) AS role, count(*) AS judges,
                   string_agg(i.judge_id || '=' || i.verdict, '; ' ORDER BY i.judge_id) AS verdicts,
                   bool_or(g.claim_id IS NOT NULL) AS gold_disagrees
            FROM items i LEFT JOIN gold g ON g.claim_id = i.claim_id AND g.judge_id = i.judge_id
            GROUP BY i.answer_id, i.claim_id
        ),
        scored AS (
            SELECT u.*, 1 - t.top / u.judges AS disagreement FROM units u JOIN tops t
            USING (answer_id, claim_id)
        )
        SELECT u.* FROM scored u
        WHERE NOT EXISTS (SELECT 1 FROM current_claim_verdicts h
                          WHERE h.judge_id = ? AND h.answer_id = u.answer_id
                            AND h.claim_id = u.claim_id)
        ORDER BY u.disagreement DESC, u.gold_disagrees DESC, u.judges DESC,
                 u.question_id, u.setting_id, u.ord
        LIMIT ?
        """,
        [*_slice_params(film_id, qtypes, settings), reviewer_judge, limit],
    )


def review_progress(
    store: Store,
    reviewer_judge: str,
    film_id: str | None = None,
    qtypes: tuple[str, ...] = (),
    settings: tuple[str, ...] = (),
) -> tuple[int, int]:
    """(items of the slice the reviewer has labelled, items of the slice with a machine verdict)."""
    row = store.rows(
        f"""
        WITH {_SLICE_ITEMS},
        units AS (SELECT DISTINCT answer_id, claim_id FROM items)
        SELECT count(*) FILTER (h.answer_id IS NOT NULL), count(*) FROM units u
        LEFT JOIN (SELECT answer_id, claim_id FROM current_claim_verdicts WHERE judge_id = ?) h
            USING (answer_id, claim_id)
        """,
        [*_slice_params(film_id, qtypes, settings), reviewer_judge],
    )[0]
    return int(row[0]), int(row[1])


def review_item(store: Store, answer_id: str, claim_id: str) -> dict | None:
    """One (answer, claim) with the question, the claim, the answer and the film, for review."""
    frame = store.df(
        "SELECT a.answer_id, c.claim_id, q.question_id, q.qtype, q.film_id, q.center,"
        " q.text AS question, q.gold, c.ord, c.role, c.text AS claim, a.setting_id,"
        " coalesce(s.label, a.setting_id) AS setting, a.text AS answer FROM answers a"
        " JOIN questions q USING (question_id) JOIN rubric_claims c ON c.claim_id = ?"
        " LEFT JOIN settings s ON s.setting_id = a.setting_id WHERE a.answer_id = ?",
        [claim_id, answer_id],
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def label_history(store: Store, answer_id: str, claim_id: str) -> pd.DataFrame:
    """Every human label of one (answer, claim), newest first, with the run and the note."""
    return store.df(
        "SELECT v.judge_id, v.verdict, v.rationale AS note, v.run_id, r.started_at"
        " FROM claim_verdicts v JOIN runs r USING (run_id)"
        " WHERE v.answer_id = ? AND v.claim_id = ? AND v.judge_id LIKE ?"
        " ORDER BY r.started_at DESC",
        [answer_id, claim_id, _HUMAN],
    )


def human_labels_of_question(store: Store, question_id: str, reviewer_judge: str) -> pd.DataFrame:
    """The reviewer's current labels on one question: answer_id, claim_id, verdict, note."""
    return store.df(
        "SELECT v.answer_id, v.claim_id, v.verdict, v.rationale AS note"
        " FROM current_claim_verdicts v JOIN rubric_claims c USING (claim_id)"
        " WHERE c.question_id = ? AND v.judge_id = ?",
        [question_id, reviewer_judge],
    )


def human_confusions(store: Store, film_id: str | None = None) -> pd.DataFrame:
    """Counts of (judge verdict, human verdict) per machine judge × human × claim role × type,
    on the items both labelled (current verdicts) — the inputs of κ against the human."""
    return store.df(
        f"""
        WITH {_SLICE_ITEMS},
        humans AS (SELECT answer_id, claim_id, judge_id AS human, verdict AS human_verdict
                   FROM current_claim_verdicts WHERE judge_id LIKE 'human:%')
        SELECT i.judge_id, h.human, i.role, i.qtype, i.verdict AS judge_verdict,
               h.human_verdict, count(*) AS n
        FROM items i JOIN humans h USING (answer_id, claim_id)
        GROUP BY ALL ORDER BY ALL
        """,
        _slice_params(film_id, (), ()),
    )


def judge_human_disagreements(
    store: Store, judge_id: str, human_id: str, film_id: str | None = None
) -> pd.DataFrame:
    """Items where a judge's current verdict differs from a human's, with question and claim."""
    return store.df(
        """
        SELECT q.question_id, q.qtype, a.setting_id, c.ord, c.role, c.text AS claim,
               j.verdict AS judge_verdict, h.verdict AS human_verdict, h.rationale AS note
        FROM current_claim_verdicts j
        JOIN current_claim_verdicts h ON h.answer_id = j.answer_id AND h.claim_id = j.claim_id
        JOIN answers a ON a.answer_id = j.answer_id
        JOIN questions q ON q.question_id = a.question_id
        JOIN rubric_claims c ON c.claim_id = j.claim_id
        WHERE j.judge_id = ? AND h.judge_id = ? AND j.verdict <> h.verdict
          AND (? IS NULL OR q.film_id = ?)
        ORDER BY q.question_id, a.setting_id, c.ord
        """,
        [judge_id, human_id, film_id, film_id],
    )


def answer_tags_of_question(store: Store, question_id: str, reviewer: str) -> pd.DataFrame:
    """The reviewer's current tags on the answers of one question: answer_id, tags, note."""
    return store.df(
        "SELECT t.answer_id, t.tags, t.note FROM current_answer_tags t JOIN answers a"
        " USING (answer_id) WHERE a.question_id = ? AND t.reviewer = ?",
        [question_id, reviewer],
    )


def tag_counts(store: Store, film_id: str | None = None) -> pd.DataFrame:
    """Per setting and error tag: answers carrying the tag (current tags, any reviewer), and
    how many answers of the setting were tagged at all.

    Columns: setting_id, setting, tag, answers, tagged_answers.
    """
    return store.df(
        """
        WITH t AS (
            SELECT t.answer_id, a.setting_id, unnest(t.tags) AS tag FROM current_answer_tags t
            JOIN answers a USING (answer_id) JOIN questions q ON q.question_id = a.question_id
            WHERE ? IS NULL OR q.film_id = ?
        ),
        tagged AS (SELECT setting_id, count(DISTINCT answer_id) AS tagged_answers FROM t GROUP BY 1)
        SELECT t.setting_id, coalesce(s.label, t.setting_id) AS setting, t.tag,
               count(DISTINCT t.answer_id) AS answers, any_value(g.tagged_answers) AS tagged_answers
        FROM t JOIN tagged g USING (setting_id) LEFT JOIN settings s USING (setting_id)
        GROUP BY ALL ORDER BY setting, answers DESC, t.tag
        """,
        [film_id, film_id],
    )


def question_decision(store: Store, question_id: str) -> pd.DataFrame:
    """Every decision on one question, newest first (history), and its revisions."""
    return store.df(
        "SELECT d.decision, d.reviewer, d.reasons, d.note, d.status_before, d.status_after,"
        " d.run_id, d.created_at FROM question_reviews d WHERE d.question_id = ?"
        " ORDER BY d.created_at DESC",
        [question_id],
    )


def question_revisions(store: Store, question_id: str) -> pd.DataFrame:
    """The question's text by revision: 0 is the original, then each edit."""
    return store.df(
        "SELECT 0 AS revision, text, gold, NULL AS reviewer, run_id FROM questions"
        " WHERE question_id = ? UNION ALL SELECT revision, text, gold, reviewer, run_id"
        " FROM question_revisions WHERE question_id = ? ORDER BY revision",
        [question_id, question_id],
    )


def current_claim_texts(store: Store, question_id: str) -> pd.DataFrame:
    """The question's claims with their latest revision (or the original): claim_id, ord, role,
    text, revision."""
    return store.df(
        "SELECT c.claim_id, c.ord, coalesce(r.role, c.role) AS role,"
        " coalesce(r.text, c.text) AS text, coalesce(r.revision, 0) AS revision"
        " FROM rubric_claims c LEFT JOIN current_claim_revisions r USING (claim_id)"
        " WHERE c.question_id = ? ORDER BY c.ord",
        [question_id],
    )


def reject_reasons_by_run(store: Store) -> pd.DataFrame:
    """Per generation run (the run that wrote the question) and reject reason: rejected
    questions (latest decision per question), with the run's decided and total questions."""
    return store.df(
        """
        WITH d AS (SELECT d.*, q.run_id AS generator_run FROM current_question_reviews d
                   JOIN questions q USING (question_id) WHERE d.decision IN ('accept', 'reject')),
        totals AS (SELECT generator_run, count(*) AS decided,
                          count(*) FILTER (decision = 'reject') AS rejected FROM d GROUP BY 1),
        reasons AS (SELECT generator_run, unnest(CASE WHEN len(reasons) = 0 THEN ['(note only)']
                                                      ELSE reasons END) AS reason
                    FROM d WHERE decision = 'reject')
        SELECT t.generator_run, r.backend, t.decided, t.rejected, x.reason, count(x.reason) AS n
        FROM totals t LEFT JOIN reasons x USING (generator_run)
        LEFT JOIN runs r ON r.run_id = t.generator_run
        GROUP BY ALL ORDER BY t.generator_run, n DESC, x.reason
        """
    )


def checks_and_decisions(store: Store, check_run: str) -> pd.DataFrame:
    """Per decided question of a check run: whether the automatic checks passed, the failed
    checks, and the latest human decision (accept / reject) with its reasons."""
    return store.df(
        """
        SELECT c.question_id, c.qtype, c.passed,
               coalesce(list(f.check_name ORDER BY f.check_name) FILTER (f.check_name IS NOT NULL),
                        []) AS failed_checks,
               d.decision, d.reasons
        FROM question_check_results c
        JOIN current_question_reviews d USING (question_id)
        LEFT JOIN question_check_failures f ON f.run_id = c.run_id AND f.question_id = c.question_id
        WHERE c.run_id = ? AND d.decision IN ('accept', 'reject')
        GROUP BY c.question_id, c.qtype, c.passed, d.decision, d.reasons
        ORDER BY c.question_id
        """,
        [check_run],
    )
