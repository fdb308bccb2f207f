"""A killed Ray run of an LLM pipeline (`beliefs annotate-many --backend openai`) writes every
unit exactly once, and the rows a local run writes (jobs stay resumable):

- a Ray worker SIGKILLed mid-unit is restarted by Ray and its unit retried; the calls it had
  made die with it (workers never write the store), so each call is logged once;
- a driver SIGKILLed mid-run is resumed by the same command: done units are skipped, the rest
  run under new runs, and the runs the killed driver had opened for its units in flight are
  closed as `failed` with the reason (none is left `running`).

The scripted server (tests/support/fake_llm.py) answers with latency so the kill lands while
units are in flight; the shared embedded Ray has 2 CPUs (tests/support/ray_session.py). Slow.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

from data_access.queries import runs_view
from data_access.store import Store
from data_access.tables import unit_ledger
from pipelines.scale import Unit, make_executor
from tests.support import scale_units as fns
from tests.support.belief_llm_replies import route
from tests.support.fake_llm import PATIENT_TIMEOUT_S
from tests.support.fake_server import FakeReply
from tests.support.paths import REPO_ROOT
from tests.support.scale_llm_films import (
    FILMS,
    annotate_many,
    batch_calls,
    llm_belief_rows,
    store_with_films,
)

pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")

LATENCY_S = 0.15


def _slow_route(body: dict, number: int) -> FakeReply:
    """`route`'s replies, each after LATENCY_S (so a unit takes seconds)."""
    return FakeReply(route(body, number), delay_s=LATENCY_S)


def _local_run(tmp_path, fake_llm) -> tuple[dict[str, pd.DataFrame], int]:
    """The local executor's rows and how many requests its server saw."""
    server = fake_llm(route)
    config = fake_llm.config(server, structured="none", concurrency=2, timeout_s=PATIENT_TIMEOUT_S)
    store = store_with_films(tmp_path, "local")
    assert annotate_many(store, "local", config, scenes_per_unit=1).complete
    return llm_belief_rows(store), len(server.log.bodies)


def _kill_when(server, n_requests: int, pid: int, fired: list) -> threading.Thread:
    """SIGKILL `pid` once `server` has seen `n_requests` requests (in a thread)."""

    def watch() -> None:
        deadline = time.monotonic() + 120
        while len(server.log.bodies) < n_requests and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        fired.append(len(server.log.bodies))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _assert_written_once_and_local(store: Store, batch, expected) -> None:
    assert batch.complete and len(batch.results) == 6, batch.failures  # 2 films x 3 scenes
    assert unit_ledger.unit_write_counts(store, batch.batch_id) == {k: 1 for k in batch.results}
    got = llm_belief_rows(store)
    for table in expected:
        pd.testing.assert_frame_equal(expected[table], got[table])
    # Each call is logged once: the killed attempt's calls never reached the store.
    logged = batch_calls(store).query("status == 'ok'")
    assert not logged.duplicated("item_id").any()


@pytest.mark.slow
def test_a_ray_worker_killed_mid_llm_unit_is_retried_and_each_unit_written_once(
    tmp_path, ray_session, fake_llm
):
    from pipelines.beliefs.llm.scaled import annotate_films_llm

    expected, local_requests = _local_run(tmp_path, fake_llm)
    server = fake_llm(_slow_route)
    config = fake_llm.config(server, structured="none", concurrency=2, timeout_s=PATIENT_TIMEOUT_S)
    store = store_with_films(tmp_path, "ray")
    executor = make_executor("ray")
    try:
        # Two units, one per actor (the executor balances by load): both workers' pids.
        probe = [Unit("a", None), Unit("b", None)]
        pids = sorted({o.value for o in executor.map_units(fns.worker_pid, probe)})
        assert len(pids) == 2
        fired: list[int] = []
        killer = _kill_when(server, local_requests // 3, pids[0], fired)
        batch = annotate_films_llm(store, FILMS, executor, config, scenes_per_unit=1)
        killer.join(timeout=5)
    finally:
        executor.close()
    assert fired and fired[0] < local_requests, "the worker was killed after the run's calls"
    # The killed worker's unit was redone: its calls were sent again.
    assert len(server.log.bodies) > local_requests
    _assert_written_once_and_local(store, batch, expected)
    # The same command again finds the batch finished and starts afresh from the cache:
    # nothing is written twice under the killed batch, and the rows stay the local ones.
    again = annotate_many(store, "ray", config, scenes_per_unit=1)
    assert again.complete and again.batch_id != batch.batch_id
    assert unit_ledger.unit_write_counts(store, batch.batch_id) == {k: 1 for k in batch.results}
    got = llm_belief_rows(store)
    for table in expected:
        pd.testing.assert_frame_equal(expected[table], got[table])


def _cli_command(store_path, address: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pipelines",
        "beliefs",
        "annotate-many",
        "--films",
        ",".join(FILMS),
        "--backend",
        "openai",
        "--scenes-per-unit",
        "1",
        "--executor",
        "ray",
        "--ray-address",
        address,
        "--store",
        str(store_path),
        "--json",
    ]


def _wait_for_done_units(store: Store, driver, at_least: int) -> None:
    deadline = time.monotonic() + 180
    done = 0
    while done < at_least and time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.3)
        batches = runs_view.batch_progress(store)
        done = int(batches["done"].sum()) if len(batches) else 0


@pytest.mark.slow
def test_a_killed_llm_driver_resumes_with_the_same_command_writing_each_unit_once(
    tmp_path, ray_address, fake_llm
):
    expected, _ = _local_run(tmp_path, fake_llm)
    server = fake_llm(_slow_route)
    store = store_with_films(tmp_path, "driver")
    store_path = tmp_path / "driver.duckdb"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "STORYSCOPE_LLM_BASE_URL": server.base_url,
        "STORYSCOPE_LLM_MODEL": "fake-model",
        "STORYSCOPE_LLM_STRUCTURED": "none",
        "STORYSCOPE_LLM_CONCURRENCY": "2",
    }
    command = _cli_command(store_path, ray_address)
    first = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL
    )
    _wait_for_done_units(store, first, 1)
    assert first.poll() is None, "the driver finished before it could be killed"
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    [batch] = runs_view.batch_progress(store).itertuples()
    assert batch.state == "running" and 1 <= batch.done < 6
    second = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert second.returncode == 0, second.stderr[-2000:]
    summary = json.loads(second.stdout.strip().splitlines()[-1])
    assert summary["batch_id"] == batch.batch_id and summary["resumed_from"] >= batch.done
    assert summary["done"] == summary["units"] == 6
    assert unit_ledger.unit_write_counts(store, batch.batch_id) == {
        f"{film}[{s}:{s + 1}]": 1 for film in FILMS for s in range(3)
    }
    got = llm_belief_rows(store)
    for table in expected:
        pd.testing.assert_frame_equal(expected[table], got[table])
    logged = batch_calls(store).query("status == 'ok'")
    assert not logged.duplicated("item_id").any()
    finished = store.scalar(
        "SELECT count(*) FROM runs WHERE step = 'beliefs.annotate' AND status = 'finished'"
    )
    assert finished == 6  # one per unit: none written twice
    # The runs the killed driver had opened for the units it never wrote (every unit's run is
    # opened before the first is dispatched) are closed by the resume, not left `running`.
    assert store.scalar("SELECT count(*) FROM runs WHERE status = 'running'") == 0
    abandoned = store.rows(
        "SELECT status, note FROM runs WHERE step = 'beliefs.annotate' AND status <> 'finished'"
    )
    assert len(abandoned) == summary["abandoned_runs_closed"] == 6 - batch.done
    for status, note in abandoned:
        assert status == "failed" and f"batch {batch.batch_id} was resumed" in note
