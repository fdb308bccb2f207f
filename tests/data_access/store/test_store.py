"""The store: migrations, transactions, and sharing the file between processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from data_access.store import Store, StoreBusy
from data_access.store.migrations import all_migrations
from data_access.tables.runs import RunSpec, end_run, list_runs, start_run


def test_migrations_recorded_in_order(store):
    numbers = [row[0] for row in store.rows("SELECT number FROM _migrations ORDER BY number")]
    assert numbers == [m.number for m in all_migrations()]
    assert numbers[:2] == [1, 2]


def test_migrations_are_idempotent(store):
    before = store.rows("SELECT number, applied_at FROM _migrations ORDER BY number")
    from data_access.store.migrations import apply_migrations

    with store.session() as cursor:
        assert apply_migrations(cursor) == []
    assert store.rows("SELECT number, applied_at FROM _migrations ORDER BY number") == before


def test_transaction_rolls_back_on_error(store):
    with pytest.raises(RuntimeError), store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO settings (setting_id, source, label, run_id) VALUES (?, ?, ?, ?)",
            ["s1", "screenplay", "Screenplay", "r1"],
        )
        raise RuntimeError("boom")
    assert store.scalar("SELECT count(*) FROM settings") == 0


def test_runs_append_with_status(store):
    run_id = start_run(store, RunSpec(step="judge", backend="lexical", params={"limit": 3}))
    assert store.scalar("SELECT status FROM runs WHERE run_id = ?", [run_id]) == "running"
    end_run(store, run_id, n_items=3)
    runs = list_runs(store)
    assert runs.loc[0, "status"] == "finished" and runs.loc[0, "n_items"] == 3


def _hold_store(path, seconds: float) -> subprocess.Popen:
    code = textwrap.dedent(f"""
        import time, duckdb
        con = duckdb.connect({str(path)!r})
        con.execute("CREATE TABLE IF NOT EXISTS holder (x INT)")
        print("held", flush=True)
        time.sleep({seconds})
        con.close()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_reader_waits_for_another_process_then_sees_its_data(store):
    store_file = store.path
    holder = _hold_store(store_file, 1.0)
    started = time.monotonic()
    try:
        tables = {r[0] for r in Store(store_file, lock_timeout=30).rows("SHOW TABLES")}
    finally:
        holder.wait()
    assert "holder" in tables
    assert time.monotonic() - started >= 0.5  # it really waited for the other process


def test_busy_store_names_the_problem(store):
    holder = _hold_store(store.path, 3.0)
    try:
        with pytest.raises(StoreBusy, match="busy"):
            Store(store.path, lock_timeout=0.3).rows("SELECT 1")
    finally:
        holder.wait()


def test_file_released_between_sessions(store):
    store.rows("SELECT 1")
    # Another process can open the file now: nothing in this process holds it.
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import duckdb; duckdb.connect({str(store.path)!r}).close(); print('ok')",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "ok", out.stderr


def test_linger_keeps_the_file_for_a_burst_then_releases_it(store):
    lingering = Store(store.path, lock_timeout=5, linger_s=0.3)
    lingering.rows("SELECT 1")
    from data_access.store import connection as store_module

    assert store.path in store_module._open_files  # still open right after the query
    time.sleep(0.8)
    assert store.path not in store_module._open_files  # released once idle
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import duckdb; duckdb.connect({str(store.path)!r}).close(); print('ok')",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "ok", out.stderr


def test_opening_the_store_leaves_no_transaction_open_so_a_commit_can_checkpoint(store):
    """The open-time check and the migrations run on cursors closed after them: a result left
    unread on the connection itself kept a read transaction open for the connection's life,
    and DuckDB then never checkpoints at COMMIT, so every row went through the WAL and was
    written again at close."""
    wal = Path(f"{store.path}.wal")
    with store.session() as held:  # the connection stays open across the write below
        held.execute("SET checkpoint_threshold = '1KB'")
        with store.transaction() as cursor:
            # staged as the Parquet importer stages a file (a relation's view: with another
            # transaction open, DuckDB will not checkpoint past it), then inserted
            stage = cursor.sql("SELECT 's' || i AS setting_id FROM range(20000) t(i)")
            stage.create_view("_stage")
            cursor.execute(
                "INSERT INTO settings (setting_id, source, label, run_id)"
                " SELECT setting_id, 'screenplay', 'Screenplay', 'r1' FROM _stage"
            )
            cursor.execute("DROP VIEW _stage")
        assert not wal.exists(), "COMMIT left its rows in the WAL instead of checkpointing"
    assert store.scalar("SELECT count(*) FROM settings") == 20000
