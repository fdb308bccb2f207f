"""The LLM path of generation against the local OpenAI-compatible test server: normal,
malformed and thin replies, every retirement rule, and replay from the cache on rerun."""

from __future__ import annotations

import json

from pipelines.qgen.generate import GenerateOptions, generate
from tests.support.qgen_film import build_film
from tests.support.qgen_llm_replies import handler


def test_llm_path_records_every_outcome_and_replays_from_cache(store, fake_llm):
    film = build_film(store)
    server = fake_llm(handler)
    config = fake_llm.config(server)
    report = generate(
        store,
        GenerateOptions(
            film,
            qtypes=["Q2", "Q3", "Q5", "Q6", "Q7", "N2"],
            n=20,
            backend="openai",
            with_analytics=False,
        ),
        llm_config=config,
    )
    by_key = {
        (d.context_set.qtype, d.context_set.center, d.context_set.anchor_scene): d
        for d in report.drafts
    }
    assert by_key[("Q3", "Mara", 2)].status == "thin"
    assert by_key[("Q6", "Tom", 5)].status == "failed"
    assert by_key[("Q2", "Mara", 5)].retire_rule == "contradicted_core"
    assert by_key[("Q5", "Mara", 5)].retire_rule == "too_few_core"
    assert by_key[("Q7", "Tom", 1)].retire_rule == "rewrite_failed_checks"
    assert "not_yes_no" in by_key[("Q7", "Tom", 1)].retire_reason
    assert by_key[("N2", "Mara", 7)].retire_rule == "gold_omits_core"
    ivy = by_key[("Q7", "Ivy", 5)]
    assert ivy.status == "candidate" and [c.role for c in ivy.claims] == ["core", "core", "context"]

    run_id = report.run_id
    stages = store.df("SELECT * FROM qgen_stage_outputs WHERE run_id = ?", [run_id])
    malformed = stages[stages["status"] == "malformed"]
    assert len(malformed) == 1 and "cut off" in malformed.iloc[0]["raw_reply"]
    thin = stages[stages["status"] == "thin"].iloc[0]
    assert json.loads(thin["payload"])["thin_reason"] == "the belief is uncontested"
    outcomes = store.df(
        "SELECT final_status, retire_rule FROM qgen_outcomes WHERE run_id = ?", [run_id]
    )
    assert set(outcomes["final_status"]) == {"candidate", "retired", "thin", "failed"}
    run = store.df(
        "SELECT backend, model, prompt_version, n_failed FROM runs WHERE run_id = ?", [run_id]
    )
    assert run.iloc[0].tolist() == ["openai", "fake-model", "qgen-v1", 1]
    assert "sk-test" not in json.dumps(store.df("SELECT * FROM runs").astype(str).values.tolist())

    # a rerun replays every validated reply from the cache: only the malformed one is re-sent
    sent = len(server.log.bodies)
    rerun = generate(
        store,
        GenerateOptions(
            film,
            qtypes=["Q2", "Q3", "Q5", "Q6", "Q7", "N2"],
            n=20,
            backend="openai",
            with_analytics=False,
        ),
        llm_config=config,
    )
    assert len(server.log.bodies) - sent == config.parse_retries + 1
    assert [d.status for d in rerun.drafts] == [d.status for d in report.drafts]
