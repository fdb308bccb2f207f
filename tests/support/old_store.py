"""A store as an older StoryScope wrote it: the schema as of an early migration, and rows written
with that schema's SQL (not through today's writers, which expect today's columns).

Built in code, deterministically, so the fixture can never drift from the migrations it stands
for: migrations are never edited, so replaying 1..N today creates exactly the tables a release at
migration N created.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from data_access.store.migrations import apply_migrations

RUN = "run-old-import"
JUDGE_RUN = "run-old-judge"
# one film, two questions with two claims each, two settings, four answers, one lexical judge
QUESTIONS = [
    ("old-q1", "Q1", "Why does Ann hide the key?"),
    ("old-q2", "N2", "How does Bo change?"),
]
SETTINGS = [("screenplay", "Screenplay / Qwen"), ("subtitles", "Subtitles / Qwen")]
VERDICTS = {  # (question, setting) -> verdicts of claims 1 and 2
    ("old-q1", "screenplay"): ("asserted", "asserted"),
    ("old-q1", "subtitles"): ("asserted", "omitted"),
    ("old-q2", "screenplay"): ("contradicted", "asserted"),
    ("old-q2", "subtitles"): ("omitted", "omitted"),
}


def build_old_store(path: Path, up_to: int) -> None:
    """Write a store at migration `up_to` (>= 30: claim verdicts unkeyed) holding the rows above,
    as a release of that time left it: runs finished, the file closed."""
    connection = duckdb.connect(str(path))
    try:
        applied = apply_migrations(connection, up_to=up_to)
        assert applied and max(applied) == up_to, f"no migration {up_to}"
        connection.execute("BEGIN TRANSACTION")
        _write_core_rows(connection)
        if up_to >= 620:
            _write_rollups_as_at_620(connection)
        connection.execute("COMMIT")
    finally:
        connection.close()


def _write_core_rows(c: duckdb.DuckDBPyConnection) -> None:
    for run_id, step in ((RUN, "import.lfvqa"), (JUDGE_RUN, "judge")):
        c.execute(
            "INSERT INTO runs (run_id, step, backend, status, finished_at, n_items)"
            " VALUES (?, ?, 'lexical', 'finished', current_timestamp, 4)",
            [run_id, step],
        )
    c.execute(
        "INSERT INTO datasets VALUES ('old', 'An old dataset', 'lfvqa', 'tests', 'MIT', false, ?)",
        [RUN],
    )
    c.execute(
        "INSERT INTO films (film_id, dataset_id, title, kind, runtime_s, run_id)"
        " VALUES ('old-film', 'old', 'The Old Film', 'film', 5400, ?)",
        [RUN],
    )
    for question_id, qtype, text in QUESTIONS:
        c.execute(
            "INSERT INTO questions (question_id, film_id, qtype, center, status, text, source,"
            " run_id) VALUES (?, 'old-film', ?, 'Ann', 'released', ?, 'paper', ?)",
            [question_id, qtype, text, RUN],
        )
        for ord_, role in ((1, "core"), (2, "context")):
            c.execute(
                "INSERT INTO rubric_claims VALUES (?, ?, ?, ?, ?, [1], ?)",
                [f"{question_id}-c{ord_}", question_id, ord_, role, f"claim {ord_}", RUN],
            )
    for setting_id, label in SETTINGS:
        c.execute(
            "INSERT INTO settings VALUES (?, ?, 'Qwen', NULL, NULL, ?, ?)",
            [setting_id, setting_id, label, RUN],
        )
    c.execute("INSERT INTO judges VALUES ('lexical', 'lexical', 'lexical', NULL, 'v1', ?)", [RUN])
    for (question_id, setting_id), labels in VERDICTS.items():
        answer_id = f"{question_id}-{setting_id}"
        c.execute(
            "INSERT INTO answers VALUES (?, ?, ?, 'an answer', ?)",
            [answer_id, question_id, setting_id, RUN],
        )
        for ord_, label in enumerate(labels, start=1):
            c.execute(
                "INSERT INTO claim_verdicts VALUES (?, 'lexical', ?, ?, ?, NULL)",
                [JUDGE_RUN, answer_id, f"{question_id}-c{ord_}", label],
            )


def _write_rollups_as_at_620(c: duckdb.DuckDBPyConnection) -> None:
    """Migration 620's narrow per-answer rollup, filled and stamped fresh the way that release's
    refresh left it (the stamp is the store's signature: row counts and finished runs)."""
    from data_access.rollups import store_signature

    c.execute(
        "INSERT INTO rollup_answer_verdicts VALUES ('lexical', 'old-q1-screenplay', 2, 2, 0, 1)"
    )
    c.execute("INSERT INTO rollup_state (name, signature) VALUES ('all', ?)", [store_signature(c)])
