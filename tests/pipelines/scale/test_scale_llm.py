"""LLM belief annotation per (film, scene range) and question generation per (film,
context-set batch, with the embeddings and near-duplicates of its analytics per batch) on the
executor (pipelines.scale): a Ray run writes the rows a local run writes, the store's cache is
consulted before dispatch, and one LLM budget holds across all Ray workers: a run whose budget
is smaller than the work stops at it, reports why, and the same command resumes the rest,
writing each unit once.

Against the scripted local OpenAI-compatible server (tests/support/fake_llm.py) and the shared
embedded Ray with 2 CPUs (tests/support/ray_session.py); marked slow.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from data_access.queries import runs_view
from data_access.store import Store
from data_access.tables import unit_ledger
from pipelines.scale import make_executor
from tests.support.belief_llm_replies import route
from tests.support.fake_llm import PATIENT_TIMEOUT_S
from tests.support.scale_llm_films import (
    FILMS,
    annotate_many,
    batch_calls,
    llm_belief_rows,
    store_with_films,
)
from tests.support.scale_rows import fresh_store

pytest.importorskip("ray", reason="Ray is installed by the test extra (storyscope[ray])")


@pytest.mark.slow
def test_llm_beliefs_per_scene_range_on_ray_write_the_local_rows(tmp_path, ray_session, fake_llm):
    from pipelines.beliefs.annotate import Selection, annotate

    server = fake_llm(route)
    config = fake_llm.config(server, structured="none", timeout_s=PATIENT_TIMEOUT_S)
    rows = {}
    for name in ("whole", "local", "ray"):
        store = store_with_films(tmp_path, name)
        if name == "whole":  # the unscaled command, a range at a time
            for film in FILMS:
                for first, stop in ((0, 2), (2, 3)):
                    annotate(store, film, "openai", Selection(first, stop), config=config)
        else:
            batch = annotate_many(store, name, config, scenes_per_unit=2)
            assert batch.complete and batch.total == 4, batch.failures  # 2 films x 2 ranges
        rows[name] = llm_belief_rows(store)
        calls = batch_calls(store)
        # (the two films' scripts are the same text, so the unscaled command's second film
        # replays the first one's calls; the batches prepare every unit before any returns)
        assert len(calls) > 0 and (name == "whole" or not calls.cached.any())
    assert all(len(rows["whole"][t]) > 0 for t in ("presence", "beliefs", "meta_beliefs"))
    for table in rows["whole"]:
        pd.testing.assert_frame_equal(rows["whole"][table], rows["local"][table])
        pd.testing.assert_frame_equal(rows["local"][table], rows["ray"][table])
    # The same command on the Ray store again: a finished batch starts afresh, and every call
    # that succeeded is answered from the store's cache, consulted before dispatch; only the
    # scripted malformed reply (never cached, as in a local rerun) is asked again.
    sent = len(server.log.bodies)
    again = annotate_many(store, "ray", config, scenes_per_unit=2)
    assert again.complete
    calls = store.df(
        "SELECT cached, status, reason, attempts FROM llm_calls WHERE run_id IN (SELECT unnest(?))",
        [[r["run_id"] for r in again.results.values()]],
    )
    assert calls.cached.sum() > 0
    asked = calls[~calls.cached]
    assert (asked.status == "failed").all() and len(asked) == 2  # ELLEN in s_001, per film
    assert set(asked.reason) == {"malformed reply"}, asked.to_dict("records")
    assert len(server.log.bodies) - sent == asked.attempts.sum()


@pytest.mark.slow
def test_a_budget_holds_across_ray_workers_and_the_rerun_resumes_the_rest(
    tmp_path, ray_session, fake_llm
):
    from dataclasses import replace

    server = fake_llm(route)
    config = fake_llm.config(server, structured="none", concurrency=2, timeout_s=PATIENT_TIMEOUT_S)
    local = store_with_films(tmp_path, "local")
    assert annotate_many(local, "local", config, scenes_per_unit=1).complete
    total = int(batch_calls(local).tokens.sum())
    budget = total // 3

    store = store_with_films(tmp_path, "ray")
    sent_before = len(server.log.bodies)
    first = annotate_many(store, "ray", replace(config, budget_tokens=budget), scenes_per_unit=1)
    assert not first.complete and first.failed > 0 and first.done < first.total == 6
    assert all("LLM budget spent" in reason for _, reason in first.failures), first.failures
    assert first.budget["spent_tokens"] >= budget and first.budget["refused"] > 0
    # Held across the workers: at most the calls in flight when it ran out (2 workers x
    # concurrency 2) go over, where a budget per worker would let each spend `budget`.
    spent = batch_calls(store)
    assert int(spent.tokens.sum()) == first.budget["spent_tokens"]
    assert int(spent.tokens.sum()) <= budget + 4 * int(spent.tokens.max())
    failures = runs_view.unit_failures(store, first.batch_id)
    assert len(failures) == first.failed and failures.error.str.contains("budget").all()

    # The same command without the budget resumes: the stopped units again (their calls from
    # the cache), the done ones untouched; every unit written exactly once.
    second = annotate_many(store, "ray", config, scenes_per_unit=1)
    assert second.batch_id == first.batch_id and second.resumed_from == first.done
    assert second.complete
    assert unit_ledger.unit_write_counts(store, first.batch_id) == {
        key: 1 for key in second.results
    }
    assert len(second.results) == 6
    # No answered call was paid twice: the resumed units replayed what the stopped ones had
    # bought (only failed calls, never cached, are asked again, as in a local rerun).
    fresh = batch_calls(store).query("not cached")
    assert len(server.log.bodies) - sent_before == fresh.attempts.sum()
    assert not fresh.query("status == 'ok'").duplicated("item_id").any()
    expected, got = llm_belief_rows(local), llm_belief_rows(store)
    for table in expected:
        pd.testing.assert_frame_equal(expected[table], got[table])


# -- question generation per (film, context-set batch), analytics on the executor ------------

QGEN_TABLES = (
    "context_sets",
    "questions",
    "rubric_claims",
    "question_evidence",
    "qgen_stage_outputs",
    "qgen_outcomes",
    "question_check_results",
    "question_check_failures",
    "question_near_duplicates",
    "question_clusters",
    "question_diversity",
    "question_opening_frames",
)


def _qgen_rows(store: Store, run_id: str, tables=QGEN_TABLES) -> dict[str, pd.DataFrame]:
    """Each table's rows of the run, the run id masked (ids embed it) and in a fixed order."""
    rows = {}
    for table in tables:
        frame = store.df(f"SELECT * EXCLUDE (run_id) FROM {table} WHERE run_id = ?", [run_id])
        frame = frame[[c for c in frame if not c.endswith("_at")]].astype(str)
        frame = frame.replace(run_id, "RUN", regex=False)
        for column in frame:
            frame[column] = frame[column].str.replace(run_id, "RUN", regex=False)
        rows[table] = frame.sort_values(list(frame)).reset_index(drop=True)
    return rows


def _generate_scaled(store, name, options, **kwargs):
    from pipelines.qgen.scaled import generate_on_executor

    executor = make_executor(name)
    try:
        return generate_on_executor(store, options, executor, **kwargs)
    finally:
        executor.close()


@pytest.mark.slow
def test_template_qgen_per_batch_on_ray_writes_the_local_rows(tmp_path, ray_session):
    from pipelines.qgen.generate import GenerateOptions, generate
    from tests.support.qgen_film import build_film

    rows, runs = {}, {}
    for name in ("whole", "local", "ray"):
        store = fresh_store(tmp_path, f"qgen-{name}")
        options = GenerateOptions(build_film(store), n=12)
        if name == "whole":  # the unscaled command
            runs[name] = generate(store, options).run_id
        else:
            batch = _generate_scaled(store, name, options, batch_size=5)
            assert batch.complete and batch.total == 3  # 12 drafts in batches of 5
            runs[name] = batch.batch_id
            assert unit_ledger.unit_write_counts(store, batch.batch_id) == {
                "00000": 1,
                "00001": 1,
                "00002": 1,
            }
        run = store.df("SELECT status, n_items FROM runs WHERE run_id = ?", [runs[name]])
        assert run.iloc[0].tolist() == ["finished", 12]
        rows[name] = _qgen_rows(store, runs[name])
        rows[name]["embeddings"] = store.df(
            "SELECT item_id, model, vector, x, y FROM embeddings WHERE run_id = ? ORDER BY item_id",
            [runs[name]],
        )
    assert len(rows["whole"]["questions"]) == 12 and len(rows["whole"]["question_clusters"]) > 0
    for table in QGEN_TABLES:
        pd.testing.assert_frame_equal(rows["whole"][table], rows["local"][table])
        pd.testing.assert_frame_equal(rows["local"][table], rows["ray"][table])
    # Embeddings per batch on the workers: the same vectors (one encoder batch at a time vs
    # all at once moves them by float noise only) and, local vs Ray, the same rows exactly.
    whole, local, ray_rows = (rows[n]["embeddings"] for n in ("whole", "local", "ray"))
    np_whole = np.vstack(whole.vector.map(np.asarray))
    np_local = np.vstack(local.vector.map(np.asarray))
    np.testing.assert_allclose(np_whole, np_local, rtol=0, atol=1e-5)
    local_ids = local.item_id.str.replace(runs["local"], "RUN")
    ray_ids = ray_rows.item_id.str.replace(runs["ray"], "RUN")
    assert local_ids.tolist() == ray_ids.tolist()
    np.testing.assert_array_equal(np_local, np.vstack(ray_rows.vector.map(np.asarray)))
    np.testing.assert_allclose(local[["x", "y"]], ray_rows[["x", "y"]], rtol=0, atol=1e-6)


@pytest.mark.slow
def test_openai_qgen_on_ray_stops_at_the_budget_and_resumes_writing_each_batch_once(
    tmp_path, ray_session, fake_llm
):
    from dataclasses import replace

    from pipelines.qgen.generate import GenerateOptions
    from tests.support.qgen_film import build_film
    from tests.support.qgen_llm_replies import handler

    server = fake_llm(handler)
    config = fake_llm.config(server, concurrency=2, timeout_s=PATIENT_TIMEOUT_S)

    def options(store):
        return GenerateOptions(
            build_film(store),
            qtypes=["Q2", "Q3", "Q5", "Q6", "Q7", "N2"],
            n=20,
            backend="openai",
            with_analytics=False,
        )

    local = fresh_store(tmp_path, "qgen-llm-local")
    done = _generate_scaled(local, "local", options(local), batch_size=4, llm_config=config)
    assert done.complete
    total = int(
        local.scalar(
            "SELECT prompt_tokens + completion_tokens FROM runs WHERE run_id = ?", [done.batch_id]
        )
    )

    store = fresh_store(tmp_path, "qgen-llm-ray")
    opts = options(store)
    tight = replace(config, budget_tokens=total // 3)
    first = _generate_scaled(store, "ray", opts, batch_size=4, llm_config=tight)
    assert not first.complete and first.failed > 0
    assert all("LLM budget spent" in reason for _, reason in first.failures)
    assert first.budget["refused"] > 0
    second = _generate_scaled(store, "ray", opts, batch_size=4, llm_config=config)
    assert second.complete and second.batch_id == first.batch_id
    assert second.resumed_from == first.done
    assert unit_ledger.unit_write_counts(store, first.batch_id) == {k: 1 for k in second.results}
    expected, got = _qgen_rows(local, done.batch_id), _qgen_rows(store, first.batch_id)
    for table in QGEN_TABLES:
        pd.testing.assert_frame_equal(expected[table], got[table])
    fresh = store.df(
        "SELECT item_id, status, attempts FROM llm_calls WHERE run_id = ? AND NOT cached",
        [first.batch_id],
    )
    assert not fresh.query("status == 'ok'").duplicated("item_id").any()


@pytest.mark.slow
def test_the_openai_judge_on_ray_stops_its_run_at_one_budget_for_all_workers(
    tmp_path, ray_session, fake_llm
):
    from pipelines.judge import JudgeOptions, run_judge
    from tests.support.lfvqa_rows import build_slice, scripted_judge

    server = fake_llm(scripted_judge)
    llm = fake_llm.config(
        server, api_key=None, concurrency=2, timeout_s=PATIENT_TIMEOUT_S
    ).public_dict()
    whole = fresh_store(tmp_path, "judge-whole")
    sizes = build_slice(whole, n_copies=3)
    full = run_judge(whole, JudgeOptions(backend="openai", llm=llm, batch_size=4))
    total = int(
        whole.scalar(
            "SELECT prompt_tokens + completion_tokens FROM runs WHERE run_id = ?", [full["run_id"]]
        )
    )

    store = fresh_store(tmp_path, "judge-budget")
    build_slice(store, n_copies=3)
    options = JudgeOptions(
        backend="openai", llm={**llm, "budget_tokens": total // 3}, batch_size=4, executor="ray"
    )
    summary = run_judge(store, options)
    assert summary["stopped"] and 0 < summary["done"] < sizes["answers"]
    run = store.df(
        "SELECT status, prompt_tokens + completion_tokens AS tokens FROM runs WHERE run_id = ?",
        [summary["run_id"]],
    )
    assert run.status.iloc[0] == "stopped"
    calls = store.df(
        "SELECT prompt_tokens + completion_tokens AS tokens FROM llm_calls WHERE run_id = ?",
        [summary["run_id"]],
    )
    # the workers (2, concurrency 2 each) together went over by at most one call in flight each
    assert total // 3 <= int(calls.tokens.sum()) <= total // 3 + 4 * int(calls.tokens.max())


@pytest.mark.slow
def test_scene_summaries_on_ray_stop_at_the_budget_and_resume_each_film_once(
    tmp_path, ray_session, fake_llm
):
    from pipelines.preprocess.summaries_scaled import summarise_films
    from tests.support.scale_rows import scripted_summary, summary_rows

    server = fake_llm(scripted_summary)
    llm = fake_llm.config(
        server, api_key=None, concurrency=1, timeout_s=PATIENT_TIMEOUT_S
    ).public_dict()
    rows = {}
    for name, budgets in (("local", [None]), ("ray", [200, None])):
        store = store_with_films(tmp_path, f"summaries-{name}")
        for budget in budgets:
            executor = make_executor(name)
            try:
                batch = summarise_films(
                    store, FILMS, executor, "openai", {**llm, "budget_tokens": budget}
                )
            finally:
                executor.close()
            if budget is not None:  # one call each already spends it: both films stop
                assert not batch.complete and batch.failed == 2
                assert all("LLM budget spent" in why for _, why in batch.failures)
                stopped = store.df("SELECT status FROM runs WHERE step = 'preprocess.summaries'")
                assert set(stopped.status) == {"stopped"}
        assert batch.complete
        assert unit_ledger.unit_write_counts(store, batch.batch_id) == {film: 1 for film in FILMS}
        rows[name] = summary_rows(store, FILMS)
    assert len(rows["local"]) == 6
    pd.testing.assert_frame_equal(rows["local"], rows["ray"])
