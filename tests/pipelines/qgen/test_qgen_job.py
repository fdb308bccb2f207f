"""The `generate` job kind and its dry run against the local scripted OpenAI-compatible server:
estimates before any call, cache hits after a run, progress by stage, stop between stages."""

from __future__ import annotations

import pytest

from data_access.tables import job_records
from pipelines.jobs import job_status, run_job_here, start_job
from pipelines.qgen.job import GENERATE_STEPS, GenerateOptions, plan_generation
from tests.support.qgen_film import build_film
from tests.support.qgen_llm_replies import handler

TYPES = ["Q2", "Q5", "Q7", "N2"]  # no Q6: its scripted reply is malformed on purpose


@pytest.fixture
def endpoint(fake_llm, monkeypatch):
    """The job reads its endpoint from the environment, as the app's thread jobs do."""
    server = fake_llm(handler)
    for name, value in {
        "STORYSCOPE_LLM_BASE_URL": server.base_url,
        "STORYSCOPE_LLM_MODEL": "fake-model",
        "STORYSCOPE_LLM_API_KEY": "sk-test-job-key",
        "STORYSCOPE_LLM_PRICE_IN": "2.0",
        "STORYSCOPE_LLM_PRICE_OUT": "8.0",
    }.items():
        monkeypatch.setenv(name, value)
    return server


def test_dry_run_estimates_then_counts_cache_hits_after_a_job(store, endpoint):
    options = GenerateOptions(
        build_film(store), qtypes=TYPES, n=20, backend="openai", with_analytics=False
    )
    plan = plan_generation(store, options)
    assert plan["model"] == "fake-model" and plan["endpoint"] == endpoint.base_url
    assert plan["items"] == sum(plan["by_type"].values()) > 0 and set(plan["by_type"]) <= set(TYPES)
    assert plan["cache_hits"] == 0 and plan["est_prompt_tokens"] > 0
    assert plan["est_completion_tokens"] == plan["items"] * 1070
    expected = (plan["est_prompt_tokens"] * 2.0 + plan["est_completion_tokens"] * 8.0) / 1e6
    assert plan["est_cost_usd"] == pytest.approx(expected)
    assert len(endpoint.log.bodies) == 0  # a dry run sends nothing

    job_id = start_job(store, "generate", options.params(), mode="inline")
    status = job_status(store, job_id)
    assert (status["state"], status["done"], status["total"]) == (
        "finished",
        GENERATE_STEPS,
        GENERATE_STEPS,
    )
    assert status["tokens"] > 0 and "sk-test" not in str(status["params"])
    run = store.rows(
        "SELECT status, backend, n_items FROM runs WHERE run_id = ?", [status["run_id"]]
    )[0]
    assert run == ("finished", "openai", plan["items"])

    again = plan_generation(store, options)
    assert again["cache_hits"] == again["items"]  # every Stage 1 reply is cached
    assert again["est_prompt_tokens"] == 0 and again["est_cost_usd"] == 0.0


def test_stop_between_stages_leaves_no_questions(store, endpoint):
    options = GenerateOptions(
        build_film(store), qtypes=TYPES, n=20, backend="openai", with_analytics=False
    )
    job_id = job_records.create_job(store, "generate", options.params())
    job_records.request_stop(store, job_id)
    assert run_job_here(store, job_id) == "stopped"
    status = job_status(store, job_id)
    assert status["state"] == "stopped" and status["done"] == 1 and status["resumable"]
    assert store.scalar("SELECT status FROM runs WHERE run_id = ?", [status["run_id"]]) == "stopped"
    assert store.scalar("SELECT count(*) FROM questions WHERE run_id = ?", [status["run_id"]]) == 0
