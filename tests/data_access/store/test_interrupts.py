"""Ctrl-C (a real SIGINT) during an import or a job leaves the store as it was: one line
saying whether the import was rolled back or kept (it reached COMMIT), exit 130, the store as the
line says; a job whose DuckDB statement is interrupted ends `interrupted` (resumable),
never `failed`."""

from __future__ import annotations

import pytest

from data_access.store import Store
from data_access.store.interrupts import WorkInterrupted, is_interrupt
from data_access.tables import job_records
from pipelines.jobs import job_status, run_job_here
from tests.support.interrupts import LONG_QUERY, send_interrupt
from tests.support.lfvqa_dataset import tiny_tables, write_dataset
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import store_dump


def _cli_script(patch: str, args: list[str]) -> str:
    return f"""
        import sys, time
        from data_access.importers import lfvqa
        {patch}
        from pipelines.cli import main
        sys.argv = ["storyscope", *{args!r}]
        main()
    """


@pytest.fixture
def seeded(store, tmp_path):
    from data_access.importers import import_lfvqa_dir

    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tiny_tables()))
    return store


def _second_dataset(tmp_path):
    from tests.support.store_snapshots import other_tables

    return write_dataset(tmp_path / "second", other_tables())


def test_ctrl_c_inside_an_import_rolls_it_back_and_says_so(seeded, tmp_path):
    before = store_dump(seeded)
    patch = f"""
        original = lfvqa.checked_table_file
        def slow(cursor, spec, *rest):
            written = original(cursor, spec, *rest)
            if spec.name == "films":
                print("inside", flush=True)
                cursor.execute({LONG_QUERY!r}).fetchall()
            return written
        lfvqa.checked_table_file = slow
    """
    folder = _second_dataset(tmp_path)
    code, stderr = send_interrupt(
        _cli_script(patch, ["import", "lfvqa", str(folder), "--store", str(seeded.path)]), 0.5
    )
    assert code == 130, stderr
    assert stderr.startswith("error: interrupted: the import of") and "rolled back" in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert store_dump(Store(seeded.path)) == before


def test_ctrl_c_after_commit_says_the_import_was_kept(seeded, tmp_path):
    patch = """
        original = lfvqa._checked_then_explained
        def committed_then_slow(*args):
            report = original(*args)
            print("inside", flush=True)
            time.sleep(60)
            return report
        lfvqa._checked_then_explained = committed_then_slow
    """
    folder = _second_dataset(tmp_path)
    code, stderr = send_interrupt(
        _cli_script(patch, ["import", "lfvqa", str(folder), "--store", str(seeded.path)]), 0.2
    )
    assert code == 130, stderr
    assert "was committed: it was kept (run import-lfvqa-" in stderr, stderr
    assert "Traceback" not in stderr
    kept = Store(seeded.path).scalar(
        "SELECT count(*) FROM runs WHERE step = 'import.lfvqa' AND source = ?",
        [str(folder.resolve())],
    )
    assert kept == 1


# 0 s: the signal lands before DuckDB has begun the statement; 1 s: while its threads run it
@pytest.mark.parametrize("delay_s", [0.0, 1.0])
def test_a_job_interrupted_inside_duckdb_ends_interrupted_not_failed(store, delay_s):
    job_id = job_records.create_job(store, "tests.support.job_kinds:long_query_job", {})
    script = f"""
        import sys
        from pipelines.cli import main
        sys.argv = ["storyscope", "jobs", "run", {job_id!r}, "--store", {str(store.path)!r}]
        main()
    """
    code, stderr = send_interrupt(script, delay_s)
    assert code == 130, stderr
    assert stderr.startswith("error: interrupted") and "Traceback" not in stderr, stderr
    status = job_status(store, job_id)
    assert status["state"] == "interrupted" and status["resumable"], status


def test_run_job_here_keeps_an_interrupt_an_interrupt(store):
    job_id = job_records.create_job(store, "tests.support.job_kinds:interrupted_job", {})
    with pytest.raises(RuntimeError, match="Query interrupted"):
        run_job_here(store, job_id)
    assert job_status(store, job_id)["state"] == "interrupted"


def test_what_counts_as_an_interrupt():
    assert is_interrupt(KeyboardInterrupt())
    assert is_interrupt(RuntimeError("Query interrupted"))
    wrapped = ValueError("batch failed")
    wrapped.__cause__ = RuntimeError("Query interrupted")
    assert is_interrupt(wrapped)
    assert not is_interrupt(RuntimeError("Query failed"))
    assert not is_interrupt(WorkInterrupted("x"))


def test_ctrl_c_inside_a_film_ingest_says_it_was_rolled_back(store, monkeypatch):
    """The ingest writes under `telling_interrupts` like the imports: a Ctrl-C before its COMMIT
    says the ingest was rolled back, and the store is as it was."""
    from pipelines.preprocess import ingest

    samples = REPO_ROOT / "samples" / "films"
    before = store_dump(store)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest, "finish_run", interrupted)
    with pytest.raises(WorkInterrupted, match="the ingest of .* was rolled back"):
        ingest.ingest_film(
            store,
            samples / "the_keepers_ledger.fountain",
            samples / "the_keepers_ledger.srt",
            film_id="ledger",
        )
    assert store_dump(store) == before
