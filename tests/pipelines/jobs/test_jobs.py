"""The job runner: thread jobs, stop + resume, and SIGKILL of a job process + exact resume."""

from __future__ import annotations

import os
import signal
import threading
import time

from data_access.tables.judging import verdicts_of_run
from pipelines.jobs import job_status, resume_job, start_job, stop_job, wait_for
from pipelines.judge import JudgeOptions
from tests.support.fake_server import FakeReply
from tests.support.lfvqa_rows import build_slice, scripted_judge


def _options(fake_llm, server, **llm) -> dict:
    config = fake_llm.config(server, **llm)
    return JudgeOptions(backend="openai", batch_size=2, llm=config.public_dict()).params()


def _slow(delay: float):
    return lambda body, n: FakeReply(content=scripted_judge(body, n), delay_s=delay)


def _wait_until(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the job"
        time.sleep(0.05)


def _assert_exactly_once(store, run_id: str, sizes: dict) -> None:
    verdicts = verdicts_of_run(store, run_id)
    assert len(verdicts) == sizes["verdicts"]
    assert not verdicts.duplicated(["answer_id", "claim_id"]).any()
    assert verdicts.answer_id.nunique() == sizes["answers"]


def test_thread_job_reports_progress_and_finishes(store, fake_llm):
    sizes = build_slice(store)
    server = fake_llm(scripted_judge)
    job_id = start_job(store, "judge", _options(fake_llm, server), mode="thread")
    wait_for(job_id, timeout=60)
    status = job_status(store, job_id)
    assert status["state"] == "finished" and not status["alive"]
    assert status["done"] == status["total"] == sizes["answers"]
    _assert_exactly_once(store, status["run_id"], sizes)


def _gated(open_calls: int, gate: threading.Event):
    """Replies 0.2 s apart, so the gateway's 0.5-s flush clock writes progress during the
    first `open_calls` requests; later requests wait for `gate`, so the job cannot finish
    before the test has asked it to stop, however loaded the machine."""

    def handler(body, n):
        if n >= open_calls:
            gate.wait(60)
        return FakeReply(content=scripted_judge(body, n), delay_s=0.2)

    return handler


def test_stopped_job_resumes_to_completion(store, fake_llm):
    sizes = build_slice(store, n_copies=3)
    gate = threading.Event()
    server = fake_llm(_gated(6, gate))
    options = _options(fake_llm, server, concurrency=1, timeout_s=60.0)
    job_id = start_job(store, "judge", options, mode="thread")
    _wait_until(lambda: job_status(store, job_id)["done"] >= 2)
    stop_job(store, job_id)
    gate.set()
    wait_for(job_id, timeout=60)
    stopped = job_status(store, job_id)
    assert stopped["state"] == "stopped" and stopped["resumable"]
    assert stopped["done"] < sizes["answers"]
    resume_job(store, job_id, mode="inline")
    finished = job_status(store, job_id)
    assert finished["state"] == "finished" and finished["done"] == sizes["answers"]
    assert finished["run_id"] == stopped["run_id"]
    _assert_exactly_once(store, finished["run_id"], sizes)


def test_sigkilled_job_process_resumes_exactly(store, fake_llm):
    sizes = build_slice(store, n_copies=5)
    server = fake_llm(_slow(0.15))
    key = "sk-test-kill-SECRET-9876543210"
    job_id = start_job(
        store,
        "judge",
        _options(fake_llm, server, concurrency=2),
        mode="subprocess",
        env={"STORYSCOPE_LLM_API_KEY": key},
    )
    _wait_until(lambda: job_status(store, job_id)["done"] >= 4)
    pid = job_status(store, job_id)["pid"]
    os.kill(pid, signal.SIGKILL)
    wait_for(job_id, timeout=10)
    killed = job_status(store, job_id)
    assert killed["state"] == "interrupted" and killed["resumable"]
    assert 4 <= killed["done"] < sizes["answers"]
    # What the killed process committed is consistent: progress == answers with verdicts.
    assert verdicts_of_run(store, killed["run_id"]).answer_id.nunique() == killed["done"]
    resume_job(store, job_id, mode="subprocess", env={"STORYSCOPE_LLM_API_KEY": key})
    wait_for(job_id, timeout=120)
    finished = job_status(store, job_id)
    assert finished["state"] == "finished", finished["error"]
    assert finished["done"] == sizes["answers"] and finished["run_id"] == killed["run_id"]
    _assert_exactly_once(store, finished["run_id"], sizes)
    assert server.log.auth_headers[0] == f"Bearer {key}"
    assert "SECRET" not in store.df("SELECT * FROM jobs").to_json()
    assert "SECRET" not in store.df("SELECT * FROM runs").to_json()


def test_unknown_kind_fails_fast(store):
    import pytest

    with pytest.raises(ValueError, match="unknown job kind"):
        start_job(store, "nonsense", {})
