"""Judge inputs and outputs: answer/claim slices, judges, claim verdicts (LF-VideoQA §3.3, F.2).

A *slice* is chosen by `JudgeFilter` (film, question type, setting, question ids, question
status). Verdicts are appended under the judging run; `current_claim_verdicts` (m0002) picks
each judge's latest finished verdict per claim. Gold self-checks judge a question's reference
answer; their `answer_id` is `gold:<question_id>` (no row in `answers`, so metrics over model
answers never include them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import pandas as pd
import pyarrow as pa

from data_access.store import Store, append_table

GOLD_PREFIX = "gold:"
_KNOWN_TABLES = {
    "films",
    "questions",
    "rubric_claims",
    "settings",
    "answers",
    "judges",
    "claim_verdicts",
    "datasets",
}


@dataclass
class JudgeFilter:
    """Which answers to judge. Empty lists mean "any"."""

    films: list[str] = field(default_factory=list)
    qtypes: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)
    question_ids: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)

    def params(self) -> list:
        lists = [self.films, self.qtypes, self.settings, self.question_ids, self.statuses]
        return [value for items in lists for value in (len(items) == 0, items or [""])]


_SLICE_WHERE = """
    (? OR q.film_id IN (SELECT unnest(?))) AND (? OR q.qtype IN (SELECT unnest(?)))
    AND (? OR s_id IN (SELECT unnest(?))) AND (? OR q.question_id IN (SELECT unnest(?)))
    AND (? OR q.status IN (SELECT unnest(?)))
"""


def answers_in_slice(
    store: Store, where: JudgeFilter, gold: bool = False, limit: int | None = None
) -> pd.DataFrame:
    """Answers to judge: answer_id, question_id, setting_id, qtype, film_id, question, answer.

    With `gold`, the questions' reference answers instead (setting_id = 'gold').
    """
    if gold:
        source = (
            "SELECT 'gold:' || q.question_id AS answer_id, q.question_id, 'gold' AS s_id,"
            " q.gold AS answer_text FROM questions q WHERE q.gold IS NOT NULL"
        )
    else:
        source = (
            "SELECT a.answer_id, a.question_id, a.setting_id AS s_id, a.text AS answer_text"
            " FROM answers a"
        )
    sql = (
        f"SELECT x.answer_id, x.question_id, x.s_id AS setting_id, q.qtype, q.film_id,"
        f" q.text AS question, q.gold AS reference, x.answer_text AS answer FROM ({source}) x"
        f" JOIN questions q USING (question_id) WHERE {_SLICE_WHERE}"
        f" ORDER BY x.answer_id LIMIT ?"
    )
    return store.df(sql, [*where.params(), limit if limit is not None else 2**62])


def claims_of_questions(store: Store, question_ids: list[str]) -> pd.DataFrame:
    """Rubric claims (claim_id, question_id, ord, role, text) of the given questions, in order."""
    return store.df(
        "SELECT claim_id, question_id, ord, role, text FROM rubric_claims"
        " WHERE question_id IN (SELECT unnest(?)) ORDER BY question_id, ord",
        [list(question_ids) or [""]],
    )


def ensure_judge(
    cursor: duckdb.DuckDBPyConnection,
    judge_id: str,
    kind: str,
    backend: str,
    model: str | None,
    prompt_version: str | None,
    run_id: str,
) -> None:
    """Register a judge the first time it is used (its first run stays its provenance)."""
    cursor.execute(
        "INSERT INTO judges (judge_id, kind, backend, model, prompt_version, run_id)"
        " SELECT ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM judges WHERE judge_id = ?)",
        [judge_id, kind, backend, model, prompt_version, run_id, judge_id],
    )


VERDICT_SCHEMA = pa.schema(
    [
        ("answer_id", pa.string()),
        ("claim_id", pa.string()),
        ("verdict", pa.string()),
        ("rationale", pa.string()),
    ]
)


def verdict_table(rows: list[tuple[str, str, str, str | None]]) -> pa.Table:
    """(answer_id, claim_id, verdict, rationale) rows as an Arrow table (`write_verdicts`
    inserts it as is; a Ray worker builds it, so the driver does no work per row)."""
    columns = list(zip(*rows)) if rows else [(), (), (), ()]
    return pa.Table.from_arrays(
        [pa.array(column, pa.string()) for column in columns], schema=VERDICT_SCHEMA
    )


def write_verdicts(
    cursor: duckdb.DuckDBPyConnection,
    run_id: str,
    judge_id: str,
    rows: list[tuple[str, str, str, str | None]] | pa.Table,
) -> int:
    """Append (answer_id, claim_id, verdict, rationale) rows of one run (tuples, or a
    `verdict_table`); returns rows written. One insert from an Arrow table."""
    table = rows if isinstance(rows, pa.Table) else verdict_table(rows)
    if table.num_rows == 0:
        return 0
    columns = ["answer_id", "claim_id", "verdict", "rationale"]
    fixed = {"run_id": run_id, "judge_id": judge_id}
    return append_table(cursor, "claim_verdicts", table, columns, fixed)


def answers_done_in_run(store: Store, run_id: str) -> set[str]:
    """Answers that already have verdicts under `run_id` (a resumed job skips them)."""
    return {
        row[0]
        for row in store.rows(
            "SELECT DISTINCT answer_id FROM claim_verdicts WHERE run_id = ?", [run_id]
        )
    }


def count_answers_in_run(cursor: duckdb.DuckDBPyConnection, run_id: str) -> int:
    """Answers with verdicts under `run_id`, as seen inside the caller's transaction."""
    return cursor.execute(
        "SELECT count(DISTINCT answer_id) FROM claim_verdicts WHERE run_id = ?", [run_id]
    ).fetchone()[0]


def verdict_answer_ids(rows: list[tuple] | pa.Table) -> set[str]:
    """The answer ids of `write_verdicts` rows (tuples or a `verdict_table`)."""
    if isinstance(rows, pa.Table):
        return set(rows.column("answer_id").unique().to_pylist())
    return {row[0] for row in rows}


def verdicts_of_run(store: Store, run_id: str) -> pd.DataFrame:
    """Every verdict row of one run."""
    return store.df(
        "SELECT * FROM claim_verdicts WHERE run_id = ? ORDER BY answer_id, claim_id", [run_id]
    )


def insert_records(cursor: duckdb.DuckDBPyConnection, table: str, records: list[dict]) -> int:
    """Append plain records to one of the LF-VideoQA tables (fixtures and small importers).

    Args:
        table: one of films, questions, rubric_claims, settings, answers, judges,
            claim_verdicts, datasets (the name is checked, never taken from data).
        records: dicts keyed by column name; every record needs the same keys.
    """
    if table not in _KNOWN_TABLES:
        raise ValueError(f"insert_records: unknown table {table!r}")
    if not records:
        return 0
    frame = pd.DataFrame(records)
    return append_table(cursor, table, frame, [c for c in frame.columns if c.isidentifier()])


def write_lexical_scores(cursor: duckdb.DuckDBPyConnection, run_id: str, rows: list[dict]) -> None:
    """Append per-answer lexical measures (dicts with answer_id, rl, clm_rl, cov50, hedge)."""
    if not rows:
        return
    frame = pd.DataFrame(rows, columns=["answer_id", "rl", "clm_rl", "cov50", "hedge"])
    append_table(cursor, "lexical_scores", frame, fixed={"run_id": run_id})


def gold_core_omissions(store: Store, run_id: str) -> pd.DataFrame:
    """Gold self-check: questions whose reference answer fails a core claim (App. F.2 retires
    them), with the failing claims."""
    return store.df(
        "SELECT c.question_id, list(c.ord ORDER BY c.ord) AS failing_core_claims,"
        " list(v.verdict ORDER BY c.ord) AS verdicts"
        " FROM claim_verdicts v JOIN rubric_claims c USING (claim_id)"
        " WHERE v.run_id = ? AND v.answer_id LIKE 'gold:%' AND c.role = 'core'"
        " AND v.verdict <> 'asserted' GROUP BY c.question_id ORDER BY c.question_id",
        [run_id],
    )
