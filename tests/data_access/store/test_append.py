"""The one bulk insert (`data_access.store.append_rows` / `append_table`): values are data,
typed columns keep their type in an all-NULL batch, fixed columns are bound once, the three
conflict rules, and a failed insert raises its own error (not the aborted transaction's) and
leaves the store as it was."""

from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from data_access.store import append_rows, append_table


@pytest.fixture
def cursor():
    connection = duckdb.connect()
    connection.execute(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text VARCHAR, score DOUBLE, run_id VARCHAR)"
    )
    yield connection
    connection.close()


def _rows(cursor) -> list[tuple]:
    return cursor.execute("SELECT * FROM notes ORDER BY id").fetchall()


def test_rows_values_are_data_and_fixed_columns_are_bound_once(cursor):
    hostile = "x'); DROP TABLE notes; --"
    written = append_rows(
        cursor,
        "notes",
        [{"id": 1, "text": hostile, "score": 0.5}, {"id": 2, "score": 2}],
        columns=["id", "text", "score"],
        fixed={"run_id": "r1"},
    )
    assert written == 2
    assert _rows(cursor) == [(1, hostile, 0.5, "r1"), (2, None, 2.0, "r1")]
    assert append_rows(cursor, "notes", []) == 0


def test_typed_columns_keep_their_type_in_an_all_null_batch(cursor):
    columns = {"id": pa.int32(), "text": pa.string(), "score": pa.float64()}
    append_rows(cursor, "notes", [{"id": 3, "text": None, "score": None}], columns=columns)
    assert _rows(cursor) == [(3, None, None, None)]


def test_tables_and_frames_with_the_three_conflict_rules(cursor):
    append_table(cursor, "notes", pa.table({"id": [1, 2], "text": ["a", "b"]}))
    frame = pd.DataFrame({"id": [2, 3], "text": ["B", "c"]})
    assert append_table(cursor, "notes", frame, conflict="ignore") == 2
    assert [r[1] for r in _rows(cursor)] == ["a", "b", "c"]
    append_table(cursor, "notes", frame, conflict="replace")
    assert [r[1] for r in _rows(cursor)] == ["a", "B", "c"]
    assert append_table(cursor, "notes", frame.iloc[:0]) == 0


def test_a_taken_key_raises_its_own_error_and_the_transaction_rolls_back_whole(cursor):
    append_table(cursor, "notes", pa.table({"id": [1], "text": ["kept"]}))
    cursor.execute("BEGIN")
    append_table(cursor, "notes", pa.table({"id": [2], "text": ["new"]}))
    with pytest.raises(duckdb.ConstraintException, match="(?i)duplicate key"):
        append_table(cursor, "notes", pa.table({"id": [1], "text": ["again"]}))
    cursor.execute("ROLLBACK")
    assert _rows(cursor) == [(1, "kept", None, None)]
    # the next append (a new transaction) works: the view the failure left is replaced
    append_table(cursor, "notes", pa.table({"id": [4], "text": ["after"]}))
    assert [r[0] for r in _rows(cursor)] == [1, 4]
