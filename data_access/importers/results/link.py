"""Link staged samples to the store's questions: which kind the file answers, and why each
sample left out was left out (a report, never silence)."""

from __future__ import annotations

import duckdb

from data_access.importers.results import report as reasons
from data_access.importers.results.report import ResultsReport
from data_access.importers.results.stage import STAGE

# kind -> (the table a sample's link id must name, its id column)
TARGETS = {"answers": ("questions", "question_id"), "predictions": ("mcq_questions", "mcq_id")}
LINKED = "_results_linked"


def choose_kind(cursor: duckdb.DuckDBPyConnection) -> str | None:
    """`answers` when more first records name an open-ended question than an MCQ, else
    `predictions`; None when none names either."""
    n_questions, n_mcqs = cursor.execute(
        f"""SELECT
              count(*) FILTER (l.link_id IN (SELECT question_id FROM questions)),
              count(*) FILTER (l.link_id IN (SELECT mcq_id FROM mcq_questions))
            FROM {STAGE} l WHERE l.repeat IS NULL"""
    ).fetchone()
    if n_questions == 0 and n_mcqs == 0:
        return None
    return "answers" if n_questions >= n_mcqs else "predictions"


def _reason_sql(kind: str | None) -> str:
    """SQL giving each staged sample's reason to be left out (NULL: imported)."""
    other = "mcq_id FROM mcq_questions" if kind == "answers" else "question_id FROM questions"
    table, column = TARGETS.get(kind, ("questions", "question_id"))
    blank = "coalesce(trim(s.text), '') = ''"
    if kind == "predictions":
        blank += " AND s.option IS NULL"
    return f"""CASE
        WHEN s.repeat IS NOT NULL THEN '{reasons.REPEATED_SAMPLE}'
        WHEN s.error IS NOT NULL THEN '{reasons.HARNESS_ERROR}'
        WHEN {blank} THEN '{reasons.EMPTY_ANSWER}'
        WHEN s.link_id IN (SELECT {column} FROM {table}) THEN NULL
        WHEN s.link_id IN (SELECT {other}) THEN '{reasons.WRONG_KIND}'
        ELSE '{reasons.UNKNOWN_ID}' END"""


def link_samples(cursor: duckdb.DuckDBPyConnection, kind: str | None, report: ResultsReport):
    """Mark every staged sample with its reason (a temp table `LINKED`) and fill the report's
    counts: matched, left out per reason with the first ids, predictions without a letter."""
    cursor.execute(
        f"CREATE OR REPLACE TEMP TABLE {LINKED} AS"
        f" SELECT s.*, {_reason_sql(kind)} AS reason FROM {STAGE} s"
    )
    first = f"[1:{reasons.FIRST_IDS}]"
    rows = cursor.execute(
        f"""SELECT reason, count(*), list(sample_id ORDER BY seq){first},
                   list(coalesce(link_id, '(none)') ORDER BY seq){first}
            FROM {LINKED} GROUP BY reason ORDER BY reason NULLS FIRST"""
    ).fetchall()
    for reason, count, first_ids, first_links in rows:
        if reason is None:
            report.n_matched = count
        else:
            report.unmatched[reason] = reasons.Unmatched(count, list(first_ids), list(first_links))
    if kind == "predictions":
        report.n_no_letter = cursor.execute(
            f"SELECT count(*) FROM {LINKED} WHERE reason IS NULL AND option IS NULL"
        ).fetchone()[0]
        _letter_rules(cursor, report)


def _letter_rules(cursor: duckdb.DuckDBPyConnection, report: ResultsReport) -> None:
    """Which rule read the imported predictions' letters, and their accuracy against the
    store's answers (a prediction without a letter is wrong, as every harness scores it)."""
    rows = cursor.execute(
        f"""SELECT coalesce(rule, 'no rule'), count(*), count(*) FILTER (option IS NULL)
            FROM {LINKED} WHERE reason IS NULL GROUP BY ALL ORDER BY 1"""
    ).fetchall()
    report.letter_rules = {rule: [n, n_none] for rule, n, n_none in rows}
    report.accuracy = cursor.execute(
        f"""SELECT avg(CASE WHEN l.option = m.option THEN 1.0 ELSE 0.0 END)
            FROM {LINKED} l JOIN mcq_questions m ON m.mcq_id = l.link_id
            WHERE l.reason IS NULL"""
    ).fetchone()[0]


def drop_linked(cursor: duckdb.DuckDBPyConnection) -> None:
    cursor.execute(f"DROP TABLE IF EXISTS {LINKED}")
