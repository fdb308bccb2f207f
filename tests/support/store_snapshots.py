"""A store's every table as data, to assert that a refused write left it exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_access.importers import ImportFailure, import_lfvqa_dir
from tests.support.lfvqa_dataset import tiny_tables


def store_dump(store) -> dict[str, list]:
    """Every row of every table (the store's whole content), in a stable order, read in one
    session (opening the file per table would dominate the test's time)."""
    with store.session() as cursor:
        tables = [
            row[0]
            for row in cursor.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
                " AND table_type = 'BASE TABLE' ORDER BY 1"
            ).fetchall()
        ]
        return {
            table: cursor.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            for table in tables
        }


def other_tables() -> dict[str, list[dict]]:
    """A second, valid dataset that does not clash with the seeded one."""
    tables = tiny_tables()
    for row in tables["films"]:
        row["film_id"] += "x"
    for name in ("scenes", "subtitles", "questions"):
        for row in tables[name]:
            row["film_id"] += "x"
    rename = {"q1": "q9", "q1.c1": "q9.c1", "q1.c2": "q9.c2", "s1": "s9", "a1": "a9", "j1": "j9"}
    for rows in tables.values():
        for row in rows:
            for key in ("question_id", "claim_id", "setting_id", "answer_id", "judge_id"):
                if key in row:
                    row[key] = rename[row[key]]
    return tables


def assert_rejected(store, folder: Path, file: str, record: str, field: str, words: str) -> str:
    before = store_dump(store)
    with pytest.raises(ImportFailure) as caught:
        import_lfvqa_dir(store, folder)
    problem = caught.value.first
    assert (problem.file, problem.record, problem.field) == (file, record, field), str(problem)
    assert words in problem.message, str(problem)
    assert store_dump(store) == before
    return str(caught.value)
