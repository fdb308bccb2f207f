"""The executor seam (pipelines.scale): local and embedded Ray (2 CPUs) run the same units,
failures come back with reasons, a killed worker or driver leaves every unit written once,
and every scaled-out pipeline writes the same rows on Ray as locally.

One Ray session (`ray_session`, tests/support/ray_session.py) serves every Ray test of the test
session, since starting Ray costs seconds; they are marked slow and still run in `make test`.
The LLM pipelines' Ray tests are in test_scale_llm.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from data_access.queries import runs_view
from data_access.store import Store
from data_access.tables import unit_ledger
from data_access.tables.runs import RunSpec
from pipelines.scale import (
    LocalExecutor,
    Unit,
    executor_name,
    make_executor,
    run_batch,
)
from tests.support import scale_units as fns
from tests.support.fake_llm import PATIENT_TIMEOUT_S
from tests.support.paths import REPO_ROOT
from tests.support.scale_rows import (
    belief_rows,
    fresh_store,
    scripted_summary,
    summary_rows,
    tree_rows,
    verdict_rows,
    write_rules_film,
)

ray = pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")


def _keep(_cursor, outcome):
    return outcome.value


def test_executor_name_reads_the_env_and_rejects_unknown_names(monkeypatch):
    monkeypatch.setenv("STORYSCOPE_EXECUTOR", "ray")
    assert executor_name() == "ray"
    assert executor_name("LOCAL") == "local"
    with pytest.raises(ValueError, match="expected one of local, ray"):
        executor_name("dask")


def test_local_batch_reports_failures_with_reasons_and_a_rerun_retries_them(store):
    units = [Unit(f"u{n}", {"n": n}) for n in (1, -2, 3)]
    first = run_batch(store, LocalExecutor(), "test.scale", {}, units, fns.square, _keep)
    assert (first.done, first.failed, first.complete) == (2, 1, False)
    [(key, reason)] = first.failures
    assert key == "u-2" and "ValueError: negative input -2" in reason
    failures = runs_view.unit_failures(store, first.batch_id)
    assert failures.to_dict("records") == [{"unit_key": "u-2", "error": reason}]
    # The same command again resumes the batch: the two done units are not run again.
    second = run_batch(store, LocalExecutor(), "test.scale", {}, units, fns.square, _keep)
    assert second.batch_id == first.batch_id and second.resumed_from == 2
    assert unit_ledger.unit_write_counts(store, first.batch_id) == {"u1": 1, "u3": 1}
    progress = runs_view.batch_progress(store).iloc[0]
    assert (progress.done, progress.failed, progress.total, progress.state) == (2, 1, 3, "running")


def test_a_resume_closes_the_unit_runs_a_killed_driver_left_running(store):
    """A step that opens a run per unit on the driver (LLM beliefs, scene summaries) records
    it with the batch; a driver killed with units in flight left those runs `running`, and the
    resume of the batch closes them as failed, with the reason, before the units run again."""
    units = [Unit(f"u{n}", {"n": n}) for n in (1, 2)]
    opened: dict[str, str] = {}

    def open_run(batch_id: str) -> None:  # what the killed driver did before it died
        for unit in units:
            spec = RunSpec("test.scale", backend="local", source=unit.key)
            opened[unit.key] = unit_ledger.start_unit_run(store, batch_id, unit.key, spec)

    killed = run_batch(
        store, LocalExecutor(), "test.scale", {}, units, fns.square, _keep, on_start=open_run
    )
    assert killed.abandoned_runs == []  # a new batch: nothing to close
    # the kill: the batch and its runs stay open as the dead driver left them
    with store.transaction() as cursor:
        cursor.execute("DELETE FROM scale_units WHERE batch_id = ?", [killed.batch_id])
        cursor.execute("UPDATE scale_batches SET state = 'running'")
    resumed = run_batch(store, LocalExecutor(), "test.scale", {}, units, fns.square, _keep)
    assert resumed.batch_id == killed.batch_id and resumed.done == 2
    assert sorted(resumed.abandoned_runs) == sorted(opened.values())
    runs = store.df("SELECT run_id, status, note FROM runs ORDER BY run_id")
    assert runs.status.tolist() == ["failed", "failed"]
    reason = f"driver stopped before the unit was written; batch {killed.batch_id} was resumed"
    assert runs.note.tolist() == [reason, reason]
    # a later resume finds nothing more to close
    with store.transaction() as cursor:
        cursor.execute("UPDATE scale_batches SET state = 'running'")
    again = run_batch(store, LocalExecutor(), "test.scale", {}, units, fns.square, _keep)
    assert again.abandoned_runs == [] and again.resumed_from == 2


@pytest.mark.slow
def test_ray_runs_every_unit_on_two_workers_with_failures_as_reasons(store, ray_executor):
    assert ray_executor.workers == 2
    units = [Unit(f"u{n}", {"n": n, "sleep": 0.05}) for n in [*range(8), -1]]
    result = run_batch(store, ray_executor, "test.scale", {}, units, fns.square, _keep)
    assert result.results == {f"u{n}": n * n for n in range(8)}
    assert result.failures[0][0] == "u-1" and "negative input -1" in result.failures[0][1]
    local = run_batch(store, LocalExecutor(), "test.scale", {"local": 1}, units, fns.square, _keep)
    assert local.results == result.results


@pytest.mark.slow
def test_models_and_state_stay_in_long_lived_workers(ray_executor):
    units = [Unit(str(i), None) for i in range(12)]
    pids = {o.value for o in ray_executor.map_units(fns.worker_pid, units)}
    assert len(pids) == ray_executor.workers  # two processes served all twelve units


@pytest.mark.slow
def test_embedded_workers_run_at_the_drivers_priority(ray_executor):
    """Ray's default worker niceness (15) would make every unit yield to all other work on the
    machine; an embedded Ray's workers run at the command's own priority."""
    units = [Unit(str(i), None) for i in range(4)]
    niceness = {o.value for o in ray_executor.map_units(fns.worker_niceness, units)}
    assert niceness == {os.nice(0)}


@pytest.mark.slow
def test_a_worker_killed_mid_unit_is_restarted_and_the_unit_written_once(
    store, ray_executor, tmp_path
):
    units = [Unit(f"u{n}", {"n": n, "kill": 3, "dir": str(tmp_path)}) for n in range(6)]
    result = run_batch(store, ray_executor, "test.scale", {}, units, fns.die_once, _keep)
    assert (tmp_path / "died-3").exists()  # the worker did die
    assert result.complete and result.results == {f"u{n}": n * n for n in range(6)}
    assert unit_ledger.unit_write_counts(store, result.batch_id) == {f"u{n}": 1 for n in range(6)}


@pytest.mark.slow
def test_a_killed_driver_resumes_with_the_same_command_writing_each_unit_once(
    store_path, ray_address
):
    command = [sys.executable, "-m", "tests.support.scale_driver", str(store_path), ray_address]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    first = subprocess.Popen([*command, "10"], cwd=REPO_ROOT, env=env, start_new_session=True)
    store = Store(store_path, lock_timeout=30)
    deadline = time.monotonic() + 120
    done = 0
    while done < 2 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.3)
        if store_path.exists():
            batches = runs_view.batch_progress(store)
            done = int(batches["done"].sum()) if len(batches) else 0
    assert first.poll() is None, "the driver finished before it could be killed"
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    batches = runs_view.batch_progress(store)
    assert batches.iloc[0].state == "running" and 2 <= batches.iloc[0].done < 10
    second = subprocess.run(
        [*command, "10"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert second.returncode == 0, second.stderr[-2000:]
    assert "done 10 resumed_from" in second.stdout
    assert int(second.stdout.split()[-1]) >= 2
    counts = unit_ledger.unit_write_counts(store, batches.iloc[0].batch_id)
    assert counts == {f"u{i:02d}": 1 for i in range(10)}
    assert runs_view.batch_progress(store).iloc[0].state == "finished"


# -- every scaled-out pipeline: a Ray run's rows equal a local run's -------------------------


@pytest.mark.slow
def test_plottree_per_film_on_ray_writes_the_local_rows(tmp_path, ray_session):
    from pipelines.plottree.scaled import build_trees
    from tests.support.plottree_film import write_fixture_film

    films = ["film-a", "film-b"]
    written = {}
    for name in ("local", "ray"):
        store = fresh_store(tmp_path, name)
        for film in films:
            write_fixture_film(store, film)
        executor = make_executor(name)
        try:
            built, batch = build_trees(store, films, executor)
        finally:
            executor.close()
        assert batch.complete and sorted(t.film_id for t in built) == films
        written[name] = tree_rows(store, films)
    pd.testing.assert_frame_equal(written["local"][0], written["ray"][0])
    np.testing.assert_allclose(written["local"][1], written["ray"][1], rtol=0, atol=1e-6)


@pytest.mark.slow
def test_difficulty_per_video_on_ray_writes_the_local_rows(tmp_path, ray_session):
    from data_access.tables.mcq import current_difficulty
    from pipelines.mcq.difficulty_run import run_difficulty
    from tests.support.mcq_records import load_records, make_mcq

    records = [
        make_mcq(
            "Friends",
            f"Friends-S01E0{v}",
            q,
            question=f"Why does Ross bring item {q} to scene {v}?",
            choices=[f"Because of reason {q + k} in episode {v}" for k in range(5)],
            times=[f"00:0{q % 6}:10-00:0{q % 6}:{20 + q}"],
            characters=["Ross"] * (1 + q % 3),
            locations=["Central Perk"],
        )
        for v in (1, 2, 3)
        for q in range(6)
    ]
    frames = {}
    for name in ("local", "ray"):
        store = fresh_store(tmp_path, name)
        load_records(store, records)
        executor = make_executor(name)
        try:
            run_difficulty(store, executor=executor)
        finally:
            executor.close()
        frame = current_difficulty(store).sort_values("mcq_id").reset_index(drop=True)
        frames[name] = frame.drop(columns=[c for c in frame if c == "run_id"])
    assert len(frames["local"]) == len(records)
    pd.testing.assert_frame_equal(frames["local"], frames["ray"], rtol=1e-6)


@pytest.mark.slow
def test_lexical_judge_per_batch_on_ray_writes_the_local_rows(tmp_path, ray_session):
    from pipelines.judge import JudgeOptions, run_judge
    from tests.support.lfvqa_rows import build_slice

    rows = {}
    for name in ("local", "ray"):
        store = fresh_store(tmp_path, name)
        sizes = build_slice(store, n_copies=3)
        summary = run_judge(store, JudgeOptions(backend="lexical", batch_size=4, executor=name))
        assert summary["done"] == sizes["answers"] and summary["failed"] == 0
        scores = store.df(
            "SELECT answer_id, rl, clm_rl, cov50, hedge FROM lexical_scores WHERE run_id = ?"
            " ORDER BY answer_id",
            [summary["run_id"]],
        )
        rows[name] = (verdict_rows(store, summary["run_id"]), scores)
    assert len(rows["local"][0]) == sizes["verdicts"]
    pd.testing.assert_frame_equal(rows["local"][0], rows["ray"][0])
    pd.testing.assert_frame_equal(rows["local"][1], rows["ray"][1])


@pytest.mark.slow
def test_openai_judge_on_ray_uses_the_cache_first_and_fills_it(tmp_path, ray_session, fake_llm):
    from pipelines.judge import JudgeOptions, run_judge
    from tests.support.lfvqa_rows import build_slice, scripted_judge

    server = fake_llm(scripted_judge)
    llm = fake_llm.config(server, api_key=None, timeout_s=PATIENT_TIMEOUT_S).public_dict()
    rows = {}
    for name in ("local", "ray"):
        store = fresh_store(tmp_path, name)
        sizes = build_slice(store, n_copies=2)
        options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor=name)
        summary = run_judge(store, options)
        assert summary["done"] == sizes["answers"] and summary["failed"] == 0
        rows[name] = verdict_rows(store, summary["run_id"])
        calls = store.df("SELECT cached FROM llm_calls WHERE run_id = ?", [summary["run_id"]])
        assert len(calls) == sizes["answers"] and not calls.cached.any()
    pd.testing.assert_frame_equal(rows["local"], rows["ray"])
    # The Ray run filled the store's cache: the same judge again replays it, sending nothing.
    sent = len(server.log.bodies)
    again = run_judge(store, JudgeOptions(backend="openai", llm=llm, batch_size=4, executor="ray"))
    assert again["done"] == sizes["answers"] and len(server.log.bodies) == sent
    replayed = store.df("SELECT cached FROM llm_calls WHERE run_id = ?", [again["run_id"]])
    assert replayed.cached.all()


@pytest.mark.slow
def test_rules_beliefs_per_scene_range_on_ray_write_the_local_rows(tmp_path, ray_session):
    from pipelines.beliefs.annotate import annotate
    from pipelines.beliefs.scaled import annotate_films

    films = ["rules-a", "rules-b"]
    rows = {}
    for name in ("whole", "local", "ray"):
        store = fresh_store(tmp_path, name)
        for film in films:
            write_rules_film(store, film)
        if name == "whole":  # the unscaled command, a film at a time
            for film in films:
                annotate(store, film, "rules")
        else:
            executor = make_executor(name)
            try:
                batch = annotate_films(store, films, executor, scenes_per_unit=1)
            finally:
                executor.close()
            assert batch.complete and batch.total == 6  # 2 films x 3 scenes
        rows[name] = belief_rows(store)
    assert len(rows["whole"]["presence"]) > 0 and len(rows["whole"]["beliefs"]) > 0
    for table in rows["whole"]:
        pd.testing.assert_frame_equal(rows["whole"][table], rows["local"][table])
        pd.testing.assert_frame_equal(rows["local"][table], rows["ray"][table])


@pytest.mark.slow
def test_scene_summaries_per_film_on_ray_write_the_local_rows(tmp_path, ray_session, fake_llm):
    from pipelines.preprocess.summaries import summarise_film
    from pipelines.preprocess.summaries_scaled import summarise_films

    films = ["rules-a", "rules-b"]
    for backend in ("extractive", "openai"):
        # a server per backend: the fake server stops itself after 120 s
        server = fake_llm(scripted_summary)
        llm = fake_llm.config(server, api_key=None, timeout_s=PATIENT_TIMEOUT_S).public_dict()
        rows = {}
        for name in ("whole", "local", "ray"):
            store = fresh_store(tmp_path, f"{backend}-{name}")
            for film in films:
                write_rules_film(store, film)
            if name == "whole":  # the unscaled command, a film at a time
                for film in films:
                    summarise_film(store, film, backend, llm)
            else:
                executor = make_executor(name)
                try:
                    batch = summarise_films(store, films, executor, backend, llm)
                finally:
                    executor.close()
                assert batch.complete
            rows[name] = summary_rows(store, films)
        assert rows["whole"]["summary"].notna().all() and len(rows["whole"]) == 6
        pd.testing.assert_frame_equal(rows["whole"], rows["local"])
        pd.testing.assert_frame_equal(rows["local"], rows["ray"])
