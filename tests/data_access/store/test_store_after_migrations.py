"""What the store runs after it applied migrations (the rollups' refresh): each hook in one
transaction of the store's own (`Store.in_transaction`), not under the process-wide lock that
every other thread's session takes, and never with a BEGIN/COMMIT of its own."""

import duckdb
import pytest

from data_access.rollups import rollups_fresh
from data_access.store import Store, connection, on_migrations_applied


@pytest.fixture
def hook_registered():
    added = []

    def register(hook):
        on_migrations_applied(hook)
        added.append(hook)

    yield register
    for hook in added:
        connection._after_migrations.remove(hook)


def test_a_hook_runs_inside_a_store_transaction_outside_the_process_lock(tmp_path, hook_registered):
    seen = {}

    def probe(cursor):
        seen["lock_held"] = connection._open_files_lock.locked()
        try:
            cursor.execute("BEGIN TRANSACTION")
        except duckdb.TransactionException:
            seen["in_transaction"] = True
        else:
            seen["in_transaction"] = False
            cursor.execute("ROLLBACK")

    hook_registered(probe)
    store = Store(tmp_path / "new.duckdb")
    assert store.scalar("SELECT 1") == 1
    assert seen == {"lock_held": False, "in_transaction": True}
    assert rollups_fresh(store)  # the registered rollup refresh ran and stamped the new store


def test_a_failing_hook_is_rolled_back_whole_and_raised(tmp_path, hook_registered):
    def half_done(cursor):
        cursor.execute("CREATE TABLE half_written (x INTEGER)")
        raise RuntimeError("hook failed")

    hook_registered(half_done)
    store = Store(tmp_path / "new.duckdb")
    with pytest.raises(RuntimeError, match="hook failed"):
        store.scalar("SELECT 1")
    tables = {row[0] for row in store.rows("SELECT table_name FROM information_schema.tables")}
    assert "half_written" not in tables and "_migrations" in tables
