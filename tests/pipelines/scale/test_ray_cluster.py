"""A real Ray cluster, started as a lab starts one: `ray start --head` plus a second node
(`ray start --address HEAD`, its own `--num-cpus` and a custom resource) on this machine,
loopback only, then the CLI's scaled commands with `--ray-address` that cluster.

- `plottree build --all` and `difficulty --recompute` on the cluster write the rows a local run
  writes;
- `judge --backend openai` (scripted server, 0.3 s a reply) on the cluster writes the rows a
  local run writes, also when the worker node is killed mid-run (SIGKILL of its processes) and
  a replacement node joins: the units the lost node held come back failed ("worker died"),
  and the same command again sends only the requests the store's cache lacks, its run holding
  every verdict once;
- the cluster is stopped at the end, whatever happens (the fixture's `finally`).

The commands run as child processes (the CLI, as a lab runs them); this process never joins
Ray, so it shares nothing with the embedded Ray of the other scale tests.

Opt-in: about 3-5 minutes on 2 cores (three Ray nodes start, two MiniLM loads per command), so
it runs in `make test-cluster`, not in `make test` (marker `cluster`; docs/SCALE.md); CI runs
it after `make test`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pandas as pd
import pytest

from data_access.store import Store
from tests.support.cluster_mcqs import cluster_mcq_records
from tests.support.ray_cluster import LocalRayCluster

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(
        os.environ.get("STORYSCOPE_TEST_CLUSTER") != "1",
        reason="starts a real Ray cluster (minutes): run `make test-cluster`",
    ),
]
pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")

CUSTOM_RESOURCE = "lab_node"
COMMAND_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A head node (1 CPU) and a worker node (1 CPU, resource `lab_node`), stopped at the end."""
    ray_cluster = LocalRayCluster(tmp_path_factory.mktemp("ray-cluster"))
    try:
        ray_cluster.start_head(num_cpus=1)
        ray_cluster.wait_for_nodes(1)
        ray_cluster.add_node(num_cpus=1, resources={CUSTOM_RESOURCE: 1})
        state = ray_cluster.wait_for_nodes(2)
        assert state["resources"]["CPU"] == 2 and state["resources"][CUSTOM_RESOURCE] == 1
        yield ray_cluster
    finally:
        ray_cluster.stop()


def storyscope(
    *args: str, cluster: LocalRayCluster, wait: bool = True
) -> subprocess.CompletedProcess | subprocess.Popen:
    """Run the CLI in a child process (as a lab runs it), with the cluster's auth token."""
    command = [sys.executable, "-m", "pipelines", *args]
    env = {**os.environ, **cluster.env, "STORYSCOPE_TORCH_THREADS": "1"}
    if not wait:
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _fresh_store(tmp_path, name: str) -> Store:
    handle = Store(tmp_path / f"{name}.duckdb", lock_timeout=60)
    with handle.session():
        pass
    return handle


def _on(executor: str, cluster: LocalRayCluster) -> list[str]:
    if executor == "local":
        return ["--executor", "local"]
    return ["--executor", "ray", "--ray-address", cluster.address]


@pytest.mark.slow
def test_plottree_and_difficulty_on_the_cluster_write_the_local_rows(tmp_path, cluster):
    from data_access.tables.mcq import current_difficulty
    from tests.support.mcq_records import load_records
    from tests.support.plottree_film import write_fixture_film
    from tests.support.scale_rows import tree_rows

    films = ["film-a", "film-b", "film-c"]
    records = cluster_mcq_records()
    trees, difficulty = {}, {}
    for executor in ("local", "ray"):
        store = _fresh_store(tmp_path, executor)
        for film in films:
            write_fixture_film(store, film)
        load_records(store, records)
        on = [*_on(executor, cluster), "--store", str(store.path)]
        storyscope("plottree", "build", "--all", *on, cluster=cluster)
        storyscope("difficulty", "--recompute", *on, cluster=cluster)
        trees[executor] = tree_rows(store, films)
        frame = current_difficulty(store).sort_values("mcq_id").reset_index(drop=True)
        difficulty[executor] = frame.drop(columns=[c for c in frame if c == "run_id"])
    pd.testing.assert_frame_equal(trees["local"][0], trees["ray"][0])
    assert abs(trees["local"][1] - trees["ray"][1]).max() <= 1e-6
    assert len(difficulty["local"]) == len(records)
    pd.testing.assert_frame_equal(difficulty["local"], difficulty["ray"], rtol=1e-6)


def _judge_args(store: Store, server, executor: str, cluster) -> list[str]:
    return [
        "judge",
        "--backend",
        "openai",
        "--base-url",
        server.base_url,
        "--model",
        "fake-model",
        "--concurrency",
        "4",
        "--store",
        str(store.path),
        "--json",
        *_on(executor, cluster),
    ]


@pytest.mark.slow
def test_openai_judge_on_the_cluster_survives_a_lost_node_and_writes_the_local_rows(
    tmp_path, cluster, judge_server
):
    from tests.support.lfvqa_rows import build_slice
    from tests.support.scale_rows import verdict_rows

    server = judge_server
    rows, summaries = {}, {}
    for executor in ("local", "ray"):
        store = _fresh_store(tmp_path, f"judge-{executor}")
        sizes = build_slice(store, n_copies=40)  # 160 answers: 5 units of 32 requests
        before = len(server.log.bodies)
        args = _judge_args(store, server, executor, cluster)
        driver = storyscope(*args, cluster=cluster, wait=False)
        if executor == "ray":
            _wait_for_requests(server, before + 40, driver)
            worker_node = cluster.nodes[-1]
            cluster.kill_node(worker_node)  # the worker node is lost mid-run
            cluster.add_node(num_cpus=1, resources={CUSTOM_RESOURCE: 1})  # its replacement
        out, err = driver.communicate(timeout=COMMAND_TIMEOUT_S)
        assert driver.returncode == 0, err.decode()[-3000:]
        summary = json.loads(out.decode().strip().splitlines()[-1])
        assert summary["done"] + summary["failed"] == sizes["answers"]
        if executor == "ray" and summary["failed"]:
            # the lost node's units failed ("worker died"): the same command again, on the
            # cluster with its replacement node, sends only what the store's cache lacks
            lost, sent = summary["failed"], len(server.log.bodies)
            rerun = storyscope(*args, cluster=cluster)
            summary = json.loads(rerun.stdout.strip().splitlines()[-1])
            assert len(server.log.bodies) - sent <= lost
        summaries[executor] = summary
        rows[executor] = verdict_rows(store, summary["run_id"])
        assert len(rows[executor]) == sizes["verdicts"]
        once = rows[executor].groupby(["answer_id", "claim_id"]).size()
        assert (once == 1).all()
    assert summaries["ray"]["done"] == summaries["local"]["done"] == sizes["answers"]
    assert summaries["ray"]["failed"] == summaries["local"]["failed"] == 0
    pd.testing.assert_frame_equal(rows["local"], rows["ray"])
    assert cluster.wait_for_nodes(2)["alive"] >= 2  # the replacement joined


@pytest.fixture
def judge_server():
    """The scripted judge with 0.3 s a reply, in this process (the workers call it over
    loopback), alive for as long as the test takes."""
    try:
        from tests.support.fake_server import FakeLLMServer, FakeReply
    except ImportError:  # before the scripted server moved out of the package
        from pipelines.llm.fake_server import FakeLLMServer, FakeReply
    from tests.support.lfvqa_rows import scripted_judge

    server = FakeLLMServer(
        lambda body, n: FakeReply(scripted_judge(body, n), delay_s=0.3),
        max_lifetime_s=COMMAND_TIMEOUT_S * 2,
    ).start()
    yield server
    server.stop()


def _wait_for_requests(server, count: int, driver: subprocess.Popen) -> None:
    deadline = time.monotonic() + COMMAND_TIMEOUT_S
    while len(server.log.bodies) < count:
        assert driver.poll() is None, driver.communicate()[1].decode()[-3000:]
        assert time.monotonic() < deadline, "the judge sent too few requests"
        time.sleep(0.1)
