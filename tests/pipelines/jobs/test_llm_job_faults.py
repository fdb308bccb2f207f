"""LLM jobs as users meet them. A judge, a generation and a belief job
each run against the scripted server with 20% of calls failing at random (429, 500, a stall
past the timeout, a body that is not JSON, a truncated reply) and complete, every failed item
recorded with its raw text and every success written once; killed at random points and
resumed (or rerun), each loses and duplicates nothing.

The figures (items, faults injected, requests recovered, duplicates) are written to
`test-artifacts/llm_job_faults.json` for the report.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

from data_access.store import Store, forget_schema_cache
from data_access.tables.judging import verdicts_of_run
from pipelines.jobs import job_status, resume_job, start_job, wait_for
from pipelines.judge import JudgeOptions
from tests.support.fake_server import FakeReply
from tests.support.fault_injection import FaultyHandler
from tests.support.lfvqa_rows import build_slice, scripted_judge
from tests.support.paths import REPO_ROOT
from tests.support.rules_film import fixture_film  # noqa: F401 (fixture)

ARTIFACT = REPO_ROOT / "test-artifacts" / "llm_job_faults.json"


def record_figures(name: str, figures: dict) -> None:
    ARTIFACT.parent.mkdir(exist_ok=True)
    found = json.loads(ARTIFACT.read_text()) if ARTIFACT.exists() else {}
    found[name] = figures
    ARTIFACT.write_text(json.dumps(found, indent=2, sort_keys=True))


def wait_until(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def failed_calls(store, run_id: str):
    return store.df(
        "SELECT item_id, error, raw_reply FROM llm_calls WHERE run_id = ? AND status = 'failed'",
        [run_id],
    )


# -- judge -----------------------------------------------------------------------------------
def judge_params(fake_llm, server, **llm) -> dict:
    config = fake_llm.config(server, **llm)
    return JudgeOptions(backend="openai", batch_size=3, llm=config.public_dict()).params()


def check_judge_run(store, run_id: str, sizes: dict) -> dict:
    """Every answer is judged once or recorded as failed with its raw text; no duplicates."""
    verdicts = verdicts_of_run(store, run_id)
    duplicates = int(verdicts.duplicated(["answer_id", "claim_id"]).sum())
    assert duplicates == 0
    judged = set(verdicts.answer_id)
    failed = failed_calls(store, run_id)
    failed_items = set(failed.item_id) - judged
    answers = set(store.df("SELECT answer_id FROM answers")["answer_id"])
    assert judged | failed_items == answers  # nothing lost
    assert (failed.raw_reply.notna() | failed.error.notna()).all()  # raw text kept
    assert len(answers) == sizes["answers"]
    return {
        "items": len(answers),
        "written_once": len(judged),
        "failed_recorded": len(failed_items),
        "duplicates": duplicates,
    }


def test_judge_job_completes_through_random_faults(store, fake_llm):
    sizes = build_slice(store, n_copies=8)
    faulty = FaultyHandler(scripted_judge, rate=0.2, seed=7)
    server = fake_llm(faulty)
    job_id = start_job(store, "judge", judge_params(fake_llm, server), mode="inline")
    status = job_status(store, job_id)
    assert status["state"] == "finished", status["error"]
    figures = check_judge_run(store, status["run_id"], sizes)
    assert faulty.faults > 0 and figures["written_once"] > 0
    record_figures("judge_faults", {**figures, **faulty.figures(), "calls": len(server.log.bodies)})


def test_judge_job_killed_at_random_points_resumes_exactly(store, fake_llm):
    sizes = build_slice(store, n_copies=8)
    slow = FaultyHandler(
        lambda body, n: FakeReply(content=scripted_judge(body, n), delay_s=0.1), rate=0.2, seed=11
    )
    server = fake_llm(slow)
    params = judge_params(fake_llm, server, concurrency=2)
    store = Store(store.path, lock_timeout=120)  # the job process holds the file per batch
    job_id = start_job(store, "judge", params, mode="subprocess")
    chooser = random.Random(19)
    kills = []
    for _ in range(2):
        threshold = job_status(store, job_id)["done"] + chooser.randint(1, 3)
        wait_until(
            lambda limit=threshold: (
                job_status(store, job_id)["done"] >= limit
                or job_status(store, job_id)["state"] == "finished"
            )
        )
        status = job_status(store, job_id)
        if status["state"] == "finished":
            break
        os.kill(status["pid"], signal.SIGKILL)
        wait_for(job_id, timeout=10)
        killed = job_status(store, job_id)
        assert killed["state"] == "interrupted" and killed["resumable"]
        kills.append(killed["done"])
        # What the killed process committed is whole: progress == answers with verdicts.
        judged = verdicts_of_run(store, killed["run_id"]).answer_id.nunique()
        assert judged == killed["done"]
        resume_job(store, job_id, mode="subprocess")
    wait_for(job_id, timeout=300)
    finished = job_status(store, job_id)
    assert finished["state"] == "finished", finished["error"]
    figures = check_judge_run(store, finished["run_id"], sizes)
    record_figures("judge_kill_resume", {**figures, "killed_at_done": kills, **slow.figures()})


# -- generation ------------------------------------------------------------------------------
GEN_TYPES = ["Q2", "Q5", "Q7", "N2"]


@pytest.fixture
def generation(store, fake_llm, monkeypatch):
    from tests.support.qgen_film import build_film
    from tests.support.qgen_llm_replies import handler

    def start(rate: float, seed: int, delay: float = 0.0):
        inner = (
            (lambda body, n: FakeReply(content=handler(body, n), delay_s=delay))
            if delay
            else handler
        )
        faulty = FaultyHandler(inner, rate=rate, seed=seed)
        server = fake_llm(faulty)
        for name, value in {
            "STORYSCOPE_LLM_BASE_URL": server.base_url,
            "STORYSCOPE_LLM_MODEL": "fake-model",
            "STORYSCOPE_LLM_API_KEY": "sk-test-job-key",
            "STORYSCOPE_LLM_TIMEOUT": "2",
        }.items():
            monkeypatch.setenv(name, value)
        return faulty, server

    from pipelines.qgen.job import GenerateOptions

    film = build_film(store)
    options = GenerateOptions(film, qtypes=GEN_TYPES, n=20, backend="openai", with_analytics=False)
    return start, options


def generated(store, run_id: str):
    return store.df(
        "SELECT question_id, qtype, text FROM questions WHERE run_id = ? ORDER BY question_id",
        [run_id],
    )


def test_generation_job_completes_through_random_faults(store, generation):
    start, options = generation
    faulty, server = start(rate=0.2, seed=5)
    job_id = start_job(store, "generate", options.params(), mode="inline")
    status = job_status(store, job_id)
    assert status["state"] == "finished", status["error"]
    questions = generated(store, status["run_id"])
    duplicates = int(questions.duplicated(["question_id"]).sum())
    assert duplicates == 0  # (the scripted writer may give two items the same wording)
    failed = failed_calls(store, status["run_id"])
    assert (failed.raw_reply.notna() | failed.error.notna()).all()
    items = store.scalar(
        "SELECT count(DISTINCT item_id) FROM llm_calls WHERE run_id = ?", [status["run_id"]]
    )
    assert faulty.faults > 0
    record_figures(
        "generation_faults",
        {
            "items": int(items),
            "questions_written": len(questions),
            "failed_recorded": int(failed.item_id.nunique()),
            "duplicates": duplicates,
            **faulty.figures(),
        },
    )


def test_generation_job_killed_and_resumed_writes_what_an_uninterrupted_run_writes(
    store, generation, tmp_path
):
    start, options = generation
    faulty, server = start(rate=0.0, seed=3, delay=0.05)
    reference = Store(tmp_path / "reference.duckdb")
    shutil.copy(store.path, reference.path)
    forget_schema_cache()
    ref_job = start_job(reference, "generate", options.params(), mode="inline")
    expected = generated(reference, job_status(reference, ref_job)["run_id"])
    reference_calls = len(server.log.bodies)
    store = Store(store.path, lock_timeout=120)  # the job process holds the file per batch
    job_id = start_job(store, "generate", options.params(), mode="subprocess")
    kill_after = random.Random(31).randint(1, max(1, reference_calls - 1))
    wait_until(lambda: len(server.log.bodies) >= reference_calls + kill_after)
    os.kill(job_status(store, job_id)["pid"], signal.SIGKILL)
    wait_for(job_id, timeout=10)
    killed = job_status(store, job_id)
    assert killed["state"] == "interrupted" and killed["resumable"]
    resume_job(store, job_id, mode="inline")
    finished = job_status(store, job_id)
    assert finished["state"] == "finished", finished["error"]
    got = generated(store, finished["run_id"])
    assert not got.duplicated(["question_id"]).any()
    assert sorted(got.text) == sorted(expected.text)  # nothing lost, nothing twice
    record_figures(
        "generation_kill_resume",
        {
            "items": len(expected),
            "killed_after_calls": kill_after,
            "calls_per_run": reference_calls,
            "written": len(got),
            "duplicates": 0,
        },
    )


# -- beliefs ---------------------------------------------------------------------------------
def belief_counts(store, film: str) -> dict:
    counts = {}
    for view in ("current_scene_events", "current_presence", "current_beliefs"):
        counts[view] = int(store.scalar(f"SELECT count(*) FROM {view} WHERE film_id = ?", [film]))
    return counts


def test_belief_job_completes_through_random_faults(fixture_film, fake_llm):  # noqa: F811
    from pipelines.beliefs.annotate import Selection, annotate
    from tests.support.belief_llm_replies import route
    from tests.support.rules_film import FILM

    faulty = FaultyHandler(route, rate=0.2, seed=23)
    config = fake_llm.config(fake_llm(faulty), structured="none")
    result = annotate(fixture_film, FILM, "openai", Selection(0, 2), config=config)
    failed = failed_calls(fixture_film, result.run_id)
    assert (failed.raw_reply.notna() | failed.error.notna()).all()
    events = fixture_film.df("SELECT event_id FROM scene_events WHERE run_id = ?", [result.run_id])
    duplicates = int(events.duplicated().sum())
    assert duplicates == 0 and faulty.faults > 0
    items = fixture_film.scalar(
        "SELECT count(DISTINCT item_id) FROM llm_calls WHERE run_id = ?", [result.run_id]
    )
    record_figures(
        "belief_faults",
        {
            "items": int(items),
            "failed_recorded": int(failed.item_id.nunique()),
            "duplicates": duplicates,
            **faulty.figures(),
        },
    )


def test_belief_annotation_killed_and_rerun_loses_and_duplicates_nothing(
    fixture_film,  # noqa: F811
    fake_llm,
    tmp_path,
):
    from tests.support.belief_llm_replies import route
    from tests.support.rules_film import FILM

    server = fake_llm(lambda body, n: FakeReply(content=route(body, n), delay_s=0.05))
    env = {
        **os.environ,
        "STORYSCOPE_LLM_BASE_URL": server.base_url,
        "STORYSCOPE_LLM_MODEL": "fake-model",
        "STORYSCOPE_LLM_API_KEY": "sk-test-belief-key",
        "STORYSCOPE_LLM_STRUCTURED": "none",
    }
    reference = tmp_path / "reference.duckdb"
    shutil.copy(fixture_film.path, reference)
    command = [
        sys.executable,
        "-c",
        "from pipelines.cli import main; main()",
        "beliefs",
        "annotate",
        "--film",
        FILM,
        "--backend",
        "openai",
        "--scenes",
        "0:2",
    ]
    subprocess.run(
        [*command, "--store", str(reference)], env=env, cwd=REPO_ROOT, check=True, timeout=600
    )
    forget_schema_cache()
    expected = belief_counts(Store(reference), FILM)
    calls_before = len(server.log.bodies)
    killed = subprocess.Popen([*command, "--store", str(fixture_film.path)], env=env, cwd=REPO_ROOT)
    threshold = calls_before + random.Random(29).randint(2, max(3, calls_before // 2))
    wait_until(lambda: len(server.log.bodies) >= threshold or killed.poll() is not None)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    subprocess.run(
        [*command, "--store", str(fixture_film.path)],
        env=env,
        cwd=REPO_ROOT,
        check=True,
        timeout=600,
    )
    forget_schema_cache()
    got = belief_counts(fixture_film, FILM)
    assert got == expected
    record_figures(
        "belief_kill_rerun", {"items": expected, "after_kill_and_rerun": got, "duplicates": 0}
    )
