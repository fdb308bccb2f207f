"""The job runner: long work (judging, generation) off the caller's thread, persisted, resumable.

API (used by the CLI and the app's "rerun judge on this slice" button):

- `start_job(store, kind, params, mode="thread"|"subprocess"|"inline", env=None) -> job_id`
  records a queued job in `jobs` and runs it: on a daemon thread of this process (the app),
  in a child `python -m pipelines jobs run JOB_ID` process (the CLI's `--background`, and
  anything that must survive the caller), or right here (`inline`, the CLI default).
  `env` adds environment variables for the child only (e.g. an API key given on the command
  line): keys are never part of `params`, which are stored.
- `job_status(store, job_id) -> dict`: the row (state, done, failed, total, cost_usd, tokens,
  run_id, error) plus `alive` and `resumable`; `list_jobs(store)` the newest rows with `alive`.
  Both take a job's state from `observed_state`, the one place that decides it: a `queued` or
  `running` job whose process is gone is `interrupted`.
- `resume_job(store, job_id, mode=...)`: run an unfinished job again under the same run. Job
  functions write their rows batch by batch in the same transaction as the progress counters
  and skip items their run already holds, so a job killed with SIGKILL and resumed ends with
  every item written exactly once. The resume first claims the job (a compare-and-set on its
  row), so of two resumes of one job at once the second is refused.
- `stop_job(store, job_id)`: ask it to stop after the current batch (state `stopped`); an
  unknown job, or one that is not running, is refused.

A Ctrl-C while a job runs (Python's KeyboardInterrupt, or DuckDB's `Query interrupted` when it
lands inside a statement) leaves the job `interrupted`, never `failed`: it resumes.

A job kind is a function `fn(ctx: JobContext) -> str | None` (return "stopped" when it ended
early). Built-in kinds are listed in `JOB_KINDS`; any other kind may be given as
"package.module:function", so child processes can import it.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandas as pd

from data_access.store import Store
from data_access.store.interrupts import is_interrupt
from data_access.tables import job_records
from data_access.tables.runs import run_usage
from pipelines.llm.failures import run_failures
from pipelines.llm.redact import redact

JOB_KINDS: dict[str, str] = {
    "judge": "pipelines.judge.job:run_judge_job",
    "generate": "pipelines.qgen.job:run_generate_job",
    "answer": "pipelines.answer.job:run_answer_job",
}
_threads: dict[str, threading.Thread] = {}
# Held while a resume reads, claims and registers a job (`resume_job`).
_resuming = threading.Lock()


@dataclass
class JobContext:
    """What a job function gets: its store, params, run, and progress/stop hooks."""

    store: Store
    job_id: str
    params: dict[str, Any]
    run_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def attach_run(self, run_id: str, total: int) -> None:
        """Record the run the job writes under (done once; a resume reuses it)."""
        self.run_id = run_id
        job_records.set_run(self.store, self.job_id, run_id, total)

    def progress(self, cursor: duckdb.DuckDBPyConnection, done: int, failed: int) -> None:
        """Write absolute progress, with the run's cost so far, in the batch's transaction."""
        usage = run_usage(cursor, self.run_id)
        job_records.set_progress(cursor, self.job_id, done, failed, usage.cost_usd, usage.tokens)

    def should_stop(self) -> bool:
        """True once someone asked the job to stop."""
        return job_records.stop_requested(self.store, self.job_id)


def _resolve(kind: str) -> Callable[[JobContext], str | None]:
    target = JOB_KINDS.get(kind, kind)
    if ":" not in target:
        raise ValueError(f"unknown job kind {kind!r}; known: {', '.join(sorted(JOB_KINDS))}")
    module, name = target.split(":", 1)
    return getattr(importlib.import_module(module), name)


def run_job_here(store: Store, job_id: str) -> str:
    """Execute (or continue) a job in the calling thread; return its final state."""
    job = _known_job(store, job_id)
    job_records.set_state(store, job_id, "running", pid=os.getpid(), clear_error=True)
    ctx = JobContext(store, job_id, job["params"], run_id=job["run_id"])
    try:
        outcome = _resolve(job["kind"])(ctx)
    except BaseException as exc:  # noqa: BLE001 - the job row must say why it ended
        if is_interrupt(exc):  # a Ctrl-C, also when DuckDB turned it into an error: resumable
            job_records.set_state(store, job_id, "interrupted", error="interrupted (Ctrl-C)")
            raise
        if not isinstance(exc, Exception):
            raise  # SystemExit and the like: the row stays running, shown interrupted once dead
        job_records.set_state(
            store,
            job_id,
            "failed",
            error=redact(
                f"{type(exc).__name__}: {exc}",
                os.environ.get("STORYSCOPE_LLM_API_KEY"),
                os.environ.get("OPENAI_API_KEY"),
            ),
        )
        return "failed"
    state = "stopped" if outcome == "stopped" else "finished"
    job_records.set_state(store, job_id, state)
    return state


def _launch(store: Store, job_id: str, mode: str, env: dict[str, str] | None) -> None:
    if mode == "inline":
        # registered while it runs, so this process sees it alive (its pid is ours)
        _threads[job_id] = threading.current_thread()
        try:
            run_job_here(store, job_id)
        finally:
            _threads.pop(job_id, None)
    elif mode == "thread":
        thread = threading.Thread(
            target=run_job_here, args=(store, job_id), daemon=True, name=f"job-{job_id}"
        )
        _threads[job_id] = thread
        thread.start()
    elif mode == "subprocess":
        job_records.set_state(store, job_id, "queued")
        # Output goes nowhere: an unread pipe fills up and blocks the child (model loading
        # prints progress bars); the job row carries state, progress and the redacted error.
        command = [
            sys.executable,
            "-m",
            "pipelines",
            "jobs",
            "run",
            job_id,
            "--store",
            str(store.path),
        ]
        process = subprocess.Popen(
            command,
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        _children[job_id] = process
        job_records.set_pid_if_queued(store, job_id, process.pid)
    else:
        raise ValueError(f"unknown job mode {mode!r} (inline | thread | subprocess)")


_children: dict[str, subprocess.Popen] = {}


def start_job(
    store: Store,
    kind: str,
    params: dict[str, Any],
    mode: str = "thread",
    env: dict[str, str] | None = None,
) -> str:
    """Record a job and run it (see module docstring); returns the job id."""
    _resolve(kind)  # fail now, not in the background, on an unknown kind
    job_id = job_records.create_job(store, kind, params)
    _launch(store, job_id, mode, env)
    return job_id


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, PermissionError, OverflowError):
        return False
    try:  # a zombie child of ours counts as dead
        with open(f"/proc/{int(pid)}/stat") as handle:
            return handle.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return True


def _alive(job: dict) -> bool:
    child = _children.get(job["job_id"])
    if child is not None:
        return child.poll() is None
    thread = _threads.get(job["job_id"])
    if thread is not None:
        return thread.is_alive()
    if job["pid"] == os.getpid():
        return False  # a thread of this process that is no longer registered
    return _pid_alive(job["pid"])


ACTIVE = ("queued", "running")
RESUMABLE = ("interrupted", "failed", "stopped")


def observed_state(job: dict) -> tuple[str, bool]:
    """(state, alive) of a job row now: a queued or running job whose process (or thread) is
    gone is `interrupted`. `job_status`, `list_jobs` and the resume claim all decide here."""
    if job["state"] not in ACTIVE:
        return job["state"], False
    alive = _alive(job)
    return (job["state"] if alive else "interrupted"), alive


def _known_job(store: Store, job_id: str) -> dict[str, Any]:
    job = job_records.get_job(store, job_id)
    if job is None:
        raise ValueError(f"no job {job_id!r} in {store.path}: see `storyscope jobs list`")
    return job


def job_status(store: Store, job_id: str) -> dict[str, Any]:
    """The job row plus `alive` and `resumable`; the state is `observed_state`'s."""
    job = _known_job(store, job_id)
    job["state"], job["alive"] = observed_state(job)
    job["resumable"] = job["state"] in RESUMABLE
    job["failures"] = run_failures(store, job.get("run_id"))  # counts by reason, first in full
    return job


def list_jobs(store: Store, kind: str | None = None, limit: int = 100) -> pd.DataFrame:
    """The newest jobs first, each with its `observed_state` and `alive`."""
    frame = job_records.list_jobs(store, kind, limit)
    observed = [observed_state(job) for job in frame.to_dict("records")]
    frame["state"] = [state for state, _ in observed]
    frame["alive"] = [alive for _, alive in observed]
    return frame


def resume_job(
    store: Store, job_id: str, mode: str = "thread", env: dict[str, str] | None = None
) -> None:
    """Run an interrupted, failed or stopped job again under its run.

    Raises:
        ValueError: no such job, it is not resumable, or another process claimed it first.
    """
    # Reading the row, claiming it and registering the job's thread or child are one step in
    # this process. Between a claim (the row says queued, with our pid) and the registration,
    # another thread would see a job of this process with nothing registered, take it for
    # interrupted and claim it again: two runs (seen once in CI).
    with _resuming:
        job = _known_job(store, job_id)
        _check_resumable(job)
        if not job_records.claim_job(store, job, os.getpid()):
            raise ValueError(
                f"job {job_id} was just resumed by another process; see `storyscope jobs"
                f" status {job_id}`"
            )
        if mode != "inline":  # a thread or a child: started and registered at once
            job_records.clear_stop(store, job_id)
            _launch(store, job_id, mode, env)
            return
        _threads[job_id] = threading.current_thread()  # alive to this process from here on
    try:
        job_records.clear_stop(store, job_id)
    except BaseException:
        _threads.pop(job_id, None)
        raise
    _launch(store, job_id, mode, env)


def _check_resumable(job: dict) -> None:
    state, _ = observed_state(job)
    if state in ACTIVE:  # also the loser of two resumes at once: the winner has queued it
        raise ValueError(
            f"job {job['job_id']} is {state} in process {job['pid']}: it is already running (or"
            f" was just resumed by another process); see `storyscope jobs status {job['job_id']}`"
        )
    if state not in RESUMABLE:
        raise ValueError(f"job {job['job_id']} is {state}; only {', '.join(RESUMABLE)} jobs resume")


def stop_job(store: Store, job_id: str) -> None:
    """Ask a running job to stop after its current batch.

    Raises:
        ValueError: no such job, or it is not running (nothing to stop).
    """
    state, _ = observed_state(_known_job(store, job_id))
    if state not in ACTIVE:
        raise ValueError(f"job {job_id} is {state}: there is nothing to stop")
    job_records.request_stop(store, job_id)


def wait_for(job_id: str, timeout: float | None = None) -> None:
    """Wait for a thread or child started by this process (tests and the CLI)."""
    if job_id in _threads:
        _threads[job_id].join(timeout)
    if job_id in _children:
        _children[job_id].wait(timeout)
