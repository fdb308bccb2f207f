"""Check stored questions from any source (`storyscope check-questions`) and record a check run.

The name budget and anchor rivals come from the question's context-set when it has one
(generated questions); otherwise the never-spoken names come from the film's characters
(`first_spoken_s` NULL), but only for films whose names were aligned at all — a film without a
single first-spoken time says nothing about which names are spoken.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from data_access.store import Store, append_rows
from data_access.tables import qgen_records
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.qgen.checks import CHECKS_VERSION, CheckContext, CheckResult, check_question
from pipelines.qgen.name_mentions import names_mentioned


@dataclass
class QuestionCheck:
    """A question's check outcome in the shape `check-questions --json` prints."""

    question_id: str
    source: str
    film_id: str | None
    qtype: str | None
    result: CheckResult
    name_violations: list[str]
    anchor_rivals: int | None

    def as_json(self) -> dict:
        return {
            "id": self.question_id,
            "source": self.source,
            "passed": self.result.passed,
            "failures": [{"check": f.check, "reason": f.reason} for f in self.result.failures],
            "leak_score": self.result.leak_score,
        }


def context_from_payload(
    payload: Mapping,
    gold: str | None,
    claims: Sequence[str] = (),
    direction_lines: Sequence[str] = (),
) -> CheckContext:
    """The check context carried by a context-set payload (Table 6 fields), with the rubric
    claims and the film's direction lines where the caller has them."""
    budget = payload.get("name_budget", {})
    lines = payload.get("dialogue_lines")
    return CheckContext(
        gold=gold,
        forbidden_names=budget.get("forbidden_names", []),
        allowed_names=budget.get("spoken_by_anchor", []) + budget.get("named_later", []),
        anchor_rivals=payload.get("anchor_location_rivals"),
        claims=list(claims),
        centres=list(payload.get("members") or []),
        dialogue_lines=None
        if lines is None or any(v is None for v in lines.values())
        else {k.upper(): v for k, v in lines.items()},
        direction_lines=direction_lines,
        qtype=payload.get("question_type"),
        anchor_scene=(payload.get("anchor") or {}).get("scene"),
        belief_entries=payload.get("belief_entries") or [],
    )


def _names_by_film(store: Store, film_ids: Sequence[str]) -> dict[str, tuple[list[str], list[str]]]:
    """film -> (never-spoken names, spoken names), for films with any first-spoken time."""
    frame = qgen_records.spoken_names(store, film_ids)
    budgets: dict[str, tuple[list[str], list[str]]] = {}
    for film_id, rows in frame.groupby("film_id"):
        if rows["first_spoken_s"].notna().sum() == 0:
            continue
        spoken = rows["first_spoken_s"].notna()
        budgets[film_id] = (
            rows.loc[~spoken, "canonical_name"].tolist(),
            rows.loc[spoken, "canonical_name"].tolist(),
        )
    return budgets


def check_questions_frame(store: Store, questions: pd.DataFrame) -> list[QuestionCheck]:
    """Run the automatic checks on stored questions (rows of `qgen_records.select_questions`)."""
    if questions.empty:
        return []
    payloads = {
        row.question_id: json.loads(row.payload)
        for row in qgen_records.anchor_contexts(
            store, questions["question_id"].tolist()
        ).itertuples()
    }
    films = questions["film_id"].dropna().unique().tolist()
    budgets = _names_by_film(store, films)
    directions = {film_id: qgen_records.direction_lines(store, film_id) for film_id in films}
    claims = qgen_records.current_claim_texts(store, questions["question_id"].tolist())
    checked = []
    for row in questions.itertuples():
        gold = row.gold if isinstance(row.gold, str) and row.gold else None
        texts = claims.get(row.question_id, []) if gold else []
        lines = directions.get(row.film_id, ())
        if row.question_id in payloads:
            context = context_from_payload(payloads[row.question_id], gold, texts, lines)
        else:
            forbidden, allowed = budgets.get(row.film_id, ([], []))
            context = CheckContext(
                gold=gold,
                forbidden_names=forbidden,
                allowed_names=allowed,
                claims=texts,
                direction_lines=lines,
            )
        checked.append(
            QuestionCheck(
                question_id=row.question_id,
                source=row.source,
                film_id=row.film_id,
                qtype=row.qtype,
                result=check_question(row.text, context),
                name_violations=names_mentioned(
                    row.text, context.forbidden_names, context.allowed_names
                ),
                anchor_rivals=context.anchor_rivals,
            )
        )
    return checked


def check_rows(run_id: str, checks: Sequence[QuestionCheck]) -> tuple[list[dict], list[dict]]:
    """Result and failure rows of `question_check_results` / `question_check_failures`."""
    results, failures = [], []
    for item in checks:
        results.append(
            {
                "run_id": run_id,
                "question_id": item.question_id,
                "source": item.source,
                "film_id": item.film_id,
                "qtype": item.qtype,
                "passed": item.result.passed,
                "leak_score": item.result.leak_score,
                "anchor_words": item.result.anchor_words,
                "anchor_rivals": item.anchor_rivals,
                "name_violations": item.name_violations,
                "checks_version": CHECKS_VERSION,
            }
        )
        failures += [
            {
                "run_id": run_id,
                "question_id": item.question_id,
                "check_name": f.check,
                "reason": f.reason,
            }
            for f in item.result.failures
        ]
    return results, failures


def run_check_questions(
    store: Store, filters: Mapping[str, Sequence[str]] | None = None, save: bool = True
) -> tuple[str | None, list[QuestionCheck]]:
    """Check the questions selected by `filters`; with `save`, record a `qgen.check` run.

    Returns:
        The run id (None when not saved) and every question's outcome.
    """
    checks = check_questions_frame(store, qgen_records.select_questions(store, filters))
    if not save:
        return None, checks
    spec = RunSpec(
        step="qgen.check",
        backend="rules",
        prompt_version=CHECKS_VERSION,
        params={"filters": dict(filters or {})},
        source="questions",
    )
    with store.transaction() as cursor:
        run_id = insert_run(cursor, spec)
        results, failures = check_rows(run_id, checks)
        append_rows(
            cursor,
            "question_check_results",
            results,
            qgen_records.COLUMNS["question_check_results"],
        )
        append_rows(
            cursor,
            "question_check_failures",
            failures,
            qgen_records.COLUMNS["question_check_failures"],
        )
        finish_run(
            cursor,
            run_id,
            n_items=len(checks),
            n_failed=sum(not item.result.passed for item in checks),
        )
    return run_id, checks
