"""`Store.in_transaction(work, conflict_retries=...)`: a transaction that loses an optimistic-
concurrency conflict is rolled back whole and run again; other errors are not retried."""

from __future__ import annotations

import duckdb
import pytest

from data_access.store import Store, is_conflict


def _counter(store: Store) -> None:
    with store.transaction() as cursor:
        cursor.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER)")
        cursor.execute("INSERT INTO counter VALUES (1, 0)")


def _n(store: Store) -> int:
    return int(store.scalar("SELECT n FROM counter WHERE id = 1"))


def test_a_real_conflict_is_retried_and_written_once(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    _counter(store)
    attempts = []

    def add_one(cursor):
        attempts.append(len(attempts))
        cursor.execute("SELECT n FROM counter").fetchall()  # the transaction's snapshot starts
        if len(attempts) == 1:
            # another writer commits a change to the same row after this transaction began
            with store.transaction() as other:
                other.execute("UPDATE counter SET n = n + 10 WHERE id = 1")
        cursor.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
        return len(attempts)

    with store.session():  # one open connection for both writers, as inside a job
        assert store.in_transaction(add_one, conflict_retries=2) == 2
    assert attempts == [0, 1]
    assert _n(store) == 11  # the other writer's 10 and this work's 1, once


def test_without_retries_the_conflict_reaches_the_caller_and_nothing_is_written(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    _counter(store)

    def add_one(cursor):
        cursor.execute("SELECT n FROM counter").fetchall()
        with store.transaction() as other:
            other.execute("UPDATE counter SET n = n + 10 WHERE id = 1")
        cursor.execute("UPDATE counter SET n = n + 1 WHERE id = 1")

    with store.session(), pytest.raises(duckdb.TransactionException) as caught:
        store.in_transaction(add_one)
    assert is_conflict(caught.value)
    assert _n(store) == 10


def test_retries_are_bounded(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    calls = []

    def always_conflicts(cursor):
        calls.append(1)
        raise duckdb.TransactionException("TransactionContext Error: Conflict on update!")

    with pytest.raises(duckdb.TransactionException):
        store.in_transaction(always_conflicts, conflict_retries=3)
    assert len(calls) == 4


def test_other_errors_are_not_retried_and_roll_back(tmp_path):
    store = Store(tmp_path / "s.duckdb")
    _counter(store)
    calls = []

    def fails(cursor):
        calls.append(1)
        cursor.execute("UPDATE counter SET n = 5 WHERE id = 1")
        raise ValueError("bad record")

    with pytest.raises(ValueError, match="bad record"):
        store.in_transaction(fails, conflict_retries=3)
    assert len(calls) == 1
    assert _n(store) == 0
