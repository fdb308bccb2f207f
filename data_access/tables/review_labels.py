"""Human review writes: claim verdicts of a reviewer, question decisions and edits,
error tags on answers.

Every save is a run (step `review.*`, backend `human`, params name the reviewer) written in one
short transaction, so a page never holds the store while a CLI job waits. Human claim verdicts
are ordinary `claim_verdicts` rows of the judge `human:<reviewer>`: agreement, run diffs and the
metrics read them like any judge's. Nothing is updated in place except `questions.status`, which
mirrors the latest decision; the decision itself (and every earlier one) stays in
`question_reviews`, and an edit is a new revision beside the untouched original.

Two reviewers saving at once (two app sessions share the process's connection, a cursor each)
would collide in DuckDB's optimistic concurrency — both refresh the rollups, or both set one
question's status. Review writes of one process therefore take turns on a lock (each holds it
for one short transaction), and a write that still conflicts with another in-process writer (a
judge job started from the app) is rolled back and retried from the start, so no label is lost.
Other processes cannot interleave: DuckDB lets one process hold the file at a time.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import duckdb

from data_access.store import Store
from data_access.tables.judging import ensure_judge, write_verdicts
from data_access.tables.runs import RunSpec, finish_run, insert_run

HUMAN_PREFIX = "human:"
HUMAN_VERDICTS = ("asserted", "contradicted", "omitted")
# LF-VideoQA App. F.1 / G: the ways generated questions fail review
REJECT_REASONS = (
    "leaks the answer",
    "ambiguous holder",
    "wrong anchor",
    "unsupported claim",
    "duplicate",
    "wrong gold",  # the gold answer says what the film does not (or no longer) hold
    "malformed",  # the text does not read: pronouns, a pasted line, a topic that misdirects
)
# the failure modes LF-VideoQA §5 discusses for model answers
ERROR_TAGS = (
    "wrong holder",
    "surface event taken for a belief",
    "hedging",
    "invented event",
    "timeline confusion",
    "other",
)
DECISION_STATUS = {"accept": "released", "reject": "retired"}
_REVIEWER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,39}$")
_CONFLICT_ATTEMPTS = 12
_WRITE_TURN = threading.Lock()

T = TypeVar("T")


class ReviewError(ValueError):
    """A review that cannot be stored as given; the message names the record and field."""


def clean_reviewer(name: str | None) -> str:
    """The reviewer's name, checked: letters, digits, `_.-`, at most 40 characters.

    Falls back to `STORYSCOPE_REVIEWER` when `name` is empty.
    """
    name = (name or os.environ.get("STORYSCOPE_REVIEWER") or "").strip()
    if not _REVIEWER_RE.match(name):
        raise ReviewError(
            f"reviewer {name!r}: field 'reviewer' must be 1-40 letters, digits, '_', '.' or '-'"
            " (set it in the sidebar or STORYSCOPE_REVIEWER)"
        )
    return name


def human_judge_id(reviewer: str) -> str:
    """The judge id of a reviewer's verdicts: `human:<name>`."""
    return HUMAN_PREFIX + clean_reviewer(reviewer)


def _is_conflict(exc: Exception) -> bool:
    return "conflict" in str(exc).lower()


def write_retrying(store: Store, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """Run `work(cursor)` in one transaction; on a write-write conflict, roll back and rerun it.

    `work` must be safe to rerun from scratch (it only appends, with a fresh run id each time).
    """
    for attempt in range(_CONFLICT_ATTEMPTS):
        try:
            with _WRITE_TURN, store.transaction() as cursor:
                return work(cursor)
        except duckdb.Error as exc:
            if not _is_conflict(exc) or attempt == _CONFLICT_ATTEMPTS - 1:
                raise
            time.sleep(min(1.0, 0.02 * 2**attempt) * (0.5 + random.random()))
    raise AssertionError("unreachable")


def _review_run(cursor, step: str, reviewer: str, **params) -> str:
    spec = RunSpec(step=step, backend="human", params={"reviewer": reviewer, **params})
    return insert_run(cursor, spec)


# -- claim verdicts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimLabel:
    """One human verdict on one (answer, claim), with an optional note."""

    answer_id: str
    claim_id: str
    verdict: str
    note: str | None = None


def _check_labels(cursor, labels: Sequence[ClaimLabel]) -> None:
    for i, label in enumerate(labels, 1):
        where = f"label {i} (answer {label.answer_id!r}, claim {label.claim_id!r})"
        if label.verdict not in HUMAN_VERDICTS:
            raise ReviewError(
                f"{where}, field 'verdict': {label.verdict!r} is not one of "
                + ", ".join(HUMAN_VERDICTS)
            )
        found = cursor.execute(
            "SELECT a.question_id, c.question_id FROM (SELECT 1) LEFT JOIN answers a"
            " ON a.answer_id = ? LEFT JOIN rubric_claims c ON c.claim_id = ?",
            [label.answer_id, label.claim_id],
        ).fetchone()
        if found[0] is None:
            raise ReviewError(f"{where}, field 'answer_id': no such answer")
        if found[1] is None:
            raise ReviewError(f"{where}, field 'claim_id': no such claim")
        if found[0] != found[1]:
            raise ReviewError(
                f"{where}, field 'claim_id': the claim is not of the answer's question"
            )


def label_claims(store: Store, reviewer: str, labels: Sequence[ClaimLabel]) -> str:
    """Store a reviewer's verdicts as one finished run of the judge `human:<reviewer>`.

    Returns:
        The run id. Relabelling a claim later appends a newer run; the old label stays as history.

    Raises:
        ReviewError: bad reviewer name, verdict, answer or claim (nothing is written).
    """
    judge_id = human_judge_id(reviewer)
    if not labels:
        raise ReviewError("no labels to store")

    def work(cursor) -> str:
        _check_labels(cursor, labels)
        run_id = _review_run(cursor, "review.verdicts", clean_reviewer(reviewer), items=len(labels))
        ensure_judge(cursor, judge_id, "human", "human", None, None, run_id)
        rows = [(x.answer_id, x.claim_id, x.verdict, x.note or None) for x in labels]
        write_verdicts(cursor, run_id, judge_id, rows)
        finish_run(cursor, run_id, n_items=len(rows))
        return run_id

    return write_retrying(store, work)


# -- questions ----------------------------------------------------------------------------------
def _question_status(cursor, question_id: str) -> str:
    row = cursor.execute(
        "SELECT status FROM questions WHERE question_id = ?", [question_id]
    ).fetchone()
    if row is None:
        raise ReviewError(f"question {question_id!r}, field 'question_id': no such question")
    return row[0]


def _check_reasons(decision: str, reasons: Sequence[str], note: str | None) -> None:
    if decision not in DECISION_STATUS:
        raise ReviewError(f"field 'decision': {decision!r} is not one of accept, reject")
    unknown = [r for r in reasons if r not in REJECT_REASONS]
    if unknown:
        raise ReviewError(
            f"field 'reasons': {unknown[0]!r} is not one of " + ", ".join(REJECT_REASONS)
        )
    if decision == "reject" and not reasons and not (note or "").strip():
        raise ReviewError("field 'reasons': a rejection needs a reason or a note")


def decide_question(
    store: Store,
    reviewer: str,
    question_id: str,
    decision: str,
    reasons: Sequence[str] = (),
    note: str | None = None,
) -> str:
    """Accept (status `released`) or reject (status `retired`) a question, through a run.

    The decision, its reasons and the status before and after are appended to
    `question_reviews`; `questions.status` is set to the new status in the same transaction.
    """
    reviewer = clean_reviewer(reviewer)
    _check_reasons(decision, reasons, note)

    def work(cursor) -> str:
        before = _question_status(cursor, question_id)
        after = DECISION_STATUS[decision]
        run_id = _review_run(cursor, "review.question", reviewer, decision=decision)
        cursor.execute(
            "INSERT INTO question_reviews (run_id, question_id, reviewer, decision, reasons,"
            " note, status_before, status_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, question_id, reviewer, decision, list(reasons), note or None, before, after],
        )
        cursor.execute(
            "UPDATE questions SET status = ? WHERE question_id = ?", [after, question_id]
        )
        finish_run(cursor, run_id, n_items=1)
        return run_id

    return write_retrying(store, work)


@dataclass(frozen=True)
class ClaimEdit:
    """A new text (and role) for one rubric claim of the edited question."""

    claim_id: str
    text: str
    role: str


def _next_revision(cursor, table: str, key: str, value: str) -> int:
    # table and key are fixed by the callers below, never data
    return (
        1
        + cursor.execute(
            f"SELECT coalesce(max(revision), 0) FROM {table} WHERE {key} = ?", [value]
        ).fetchone()[0]
    )


def _write_claim_edits(cursor, run_id, reviewer, question_id, claims: Sequence[ClaimEdit]) -> None:
    for edit in claims:
        owner = cursor.execute(
            "SELECT question_id FROM rubric_claims WHERE claim_id = ?", [edit.claim_id]
        ).fetchone()
        if owner is None or owner[0] != question_id:
            raise ReviewError(f"claim {edit.claim_id!r}, field 'claim_id': not of {question_id}")
        if edit.role not in ("core", "context") or not edit.text.strip():
            raise ReviewError(f"claim {edit.claim_id!r}, field 'role'/'text': core|context, text")
        cursor.execute(
            "INSERT INTO claim_revisions (run_id, claim_id, question_id, revision, role, text,"
            " reviewer) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                edit.claim_id,
                question_id,
                _next_revision(cursor, "claim_revisions", "claim_id", edit.claim_id),
                edit.role,
                edit.text.strip(),
                reviewer,
            ],
        )


def revise_question(
    store: Store,
    reviewer: str,
    question_id: str,
    text: str,
    gold: str | None = None,
    claims: Sequence[ClaimEdit] = (),
    note: str | None = None,
) -> str:
    """Store an edit of a question (and of some of its claims) as new revisions.

    The original rows in `questions` / `rubric_claims` are kept as revision 0; a decision row
    `edit` records who edited and why. The status is left as it was.
    """
    reviewer = clean_reviewer(reviewer)
    if not text.strip():
        raise ReviewError(f"question {question_id!r}, field 'text': must not be empty")

    def work(cursor) -> str:
        status = _question_status(cursor, question_id)
        run_id = _review_run(cursor, "review.question", reviewer, decision="edit")
        cursor.execute(
            "INSERT INTO question_revisions (run_id, question_id, revision, text, gold, reviewer)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                run_id,
                question_id,
                _next_revision(cursor, "question_revisions", "question_id", question_id),
                text.strip(),
                gold,
                reviewer,
            ],
        )
        _write_claim_edits(cursor, run_id, reviewer, question_id, claims)
        cursor.execute(
            "INSERT INTO question_reviews (run_id, question_id, reviewer, decision, reasons,"
            " note, status_before, status_after) VALUES (?, ?, ?, 'edit', [], ?, ?, ?)",
            [run_id, question_id, reviewer, note or None, status, status],
        )
        finish_run(cursor, run_id, n_items=1 + len(claims))
        return run_id

    return write_retrying(store, work)


# -- error tags ---------------------------------------------------------------------------------
def tag_answer(
    store: Store, reviewer: str, answer_id: str, tags: Sequence[str], note: str | None = None
) -> str:
    """Set a reviewer's error tags on one answer (the whole set; an empty set clears them)."""
    reviewer = clean_reviewer(reviewer)
    unknown = [t for t in tags if t not in ERROR_TAGS]
    if unknown:
        raise ReviewError(
            f"answer {answer_id!r}, field 'tags': {unknown[0]!r} is not one of "
            + ", ".join(ERROR_TAGS)
        )

    def work(cursor) -> str:
        if (
            cursor.execute("SELECT 1 FROM answers WHERE answer_id = ?", [answer_id]).fetchone()
            is None
        ):
            raise ReviewError(f"answer {answer_id!r}, field 'answer_id': no such answer")
        run_id = _review_run(cursor, "review.tags", reviewer)
        cursor.execute(
            "INSERT INTO answer_tags (run_id, answer_id, reviewer, tags, note)"
            " VALUES (?, ?, ?, ?, ?)",
            [run_id, answer_id, reviewer, sorted(set(tags)), note or None],
        )
        finish_run(cursor, run_id, n_items=1)
        return run_id

    return write_retrying(store, work)
