"""One truth for a job's state: `jobs list` and `jobs status` agree
on a job whose process died; `jobs stop` refuses an unknown or finished job and writes nothing;
of two `jobs resume` of one job at once, exactly one runs."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from data_access.tables import job_records
from pipelines.cli import app, load_commands
from pipelines.jobs import job_status, list_jobs, resume_job, start_job, stop_job
from tests.support.paths import REPO_ROOT

runner = CliRunner()


KIND = "tests.support.job_kinds:counted_job"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _orphaned_job(store, tmp_path) -> str:
    """A job whose row says `running` but whose process is gone (a SIGKILLed worker)."""
    job_id = job_records.create_job(store, KIND, {"marker": str(tmp_path / "marker")})
    job_records.set_state(store, job_id, "running", pid=_dead_pid())
    return job_id


def _cli(*args: str):
    load_commands()
    return runner.invoke(app, list(args))


def _signals(store) -> int:
    return int(store.scalar("SELECT count(*) FROM job_signals"))


def test_list_and_status_agree_on_a_dead_job(store, tmp_path):
    job_id = _orphaned_job(store, tmp_path)
    assert job_status(store, job_id)["state"] == "interrupted"
    listed = list_jobs(store).set_index("job_id")
    assert listed.loc[job_id, "state"] == "interrupted" and not listed.loc[job_id, "alive"]
    shown = _cli("jobs", "list", "--store", str(store.path))
    assert shown.exit_code == 0 and "interrupted" in shown.output and "running" not in shown.output
    status = _cli("jobs", "status", job_id, "--store", str(store.path))
    assert "state: interrupted" in status.output


def test_stop_refuses_an_unknown_or_finished_job_and_writes_nothing(store, tmp_path):
    unknown = _cli("jobs", "stop", "job-nope", "--store", str(store.path))
    assert unknown.exit_code == 2 and unknown.output.startswith("error: no job 'job-nope'")
    job_id = start_job(store, KIND, {"marker": str(tmp_path / "m")}, mode="inline")
    finished = _cli("jobs", "stop", job_id, "--store", str(store.path))
    assert finished.exit_code == 2 and "is finished: there is nothing to stop" in finished.output
    assert _signals(store) == 0
    with pytest.raises(ValueError, match="interrupted: there is nothing to stop"):
        stop_job(store, _orphaned_job(store, tmp_path))
    assert _signals(store) == 0


def test_a_claim_is_a_compare_and_set(store, tmp_path):
    job_id = _orphaned_job(store, tmp_path)
    seen = job_records.get_job(store, job_id)
    assert job_records.claim_job(store, seen, 1)
    assert not job_records.claim_job(store, seen, 2)  # the row changed under the second
    assert job_records.get_job(store, job_id)["pid"] == 1


def test_two_resumes_at_once_run_the_job_once(store, tmp_path):
    marker = tmp_path / "marker"
    job_id = job_records.create_job(store, KIND, {"marker": str(marker), "sleep_s": 3})
    job_records.set_state(store, job_id, "running", pid=_dead_pid())
    command = [sys.executable, "-m", "pipelines", "jobs", "resume", job_id]
    command += ["--store", str(store.path)]
    children = [
        subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=180)[0].decode() for child in children]
    codes = sorted(child.returncode for child in children)
    assert codes == [0, 2], outputs
    refused = next(out for out in outputs if out.startswith("error:"))
    # the loser read the row after the winner queued it (already running), or before (its
    # compare-and-set failed), or, on a slow machine, after the job had finished
    assert (
        "already running" in refused
        or "just resumed by another process" in refused
        or ("is finished" in refused)
    ), refused
    assert marker.read_text() == "ran\n"
    assert job_status(store, job_id)["state"] == "finished"


def test_resume_in_two_threads_of_one_process_runs_once(store, tmp_path):
    import threading

    marker = tmp_path / "marker"
    job_id = job_records.create_job(store, KIND, {"marker": str(marker), "sleep_s": 1})
    job_records.set_state(store, job_id, "stopped")
    errors: list[str] = []

    def resume() -> None:
        try:
            resume_job(store, job_id, mode="inline")
        except ValueError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=resume) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert marker.read_text() == "ran\n" and len(errors) == 1, errors


@pytest.mark.parametrize("mode", ["inline", "thread"])
def test_a_resume_reading_the_row_just_after_another_threads_claim_is_refused(
    store, tmp_path, monkeypatch, mode
):
    """The window CI once hit: thread A has claimed the job (queued, this process's pid) but not
    yet registered its thread; thread B reads the row then. B must see a running job, not an
    interrupted one it may claim again. A's claim is held open here until B has started."""
    import threading

    marker = tmp_path / "marker"
    job_id = job_records.create_job(store, KIND, {"marker": str(marker), "sleep_s": 0.5})
    job_records.set_state(store, job_id, "stopped")
    claimed, second_started = threading.Event(), threading.Event()
    real_claim = job_records.claim_job

    def slow_claim(*args):
        won = real_claim(*args)
        if won:
            claimed.set()
            second_started.wait(10)
            time.sleep(0.3)  # B reads the row now, unless the claim and registration are one step
        return won

    monkeypatch.setattr(job_records, "claim_job", slow_claim)
    errors: list[str] = []

    def resume() -> None:
        try:
            resume_job(store, job_id, mode=mode)
        except ValueError as exc:
            errors.append(str(exc))

    first = threading.Thread(target=resume)
    first.start()
    assert claimed.wait(30)
    second = threading.Thread(target=resume)
    second.start()
    second_started.set()
    for thread in (first, second):
        thread.join(60)
    from pipelines.jobs import wait_for

    wait_for(job_id, 60)
    assert marker.read_text() == "ran\n" and len(errors) == 1, errors
    assert "already running" in errors[0]
