"""Structured-output negotiation against the scripted server's dialects."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from data_access.queries.runs_view import llm_failure_counts
from data_access.tables.llm_modes import endpoint_modes, remembered_mode
from data_access.tables.runs import RunSpec, start_run
from pipelines.llm import Gateway, LLMRequest, load_config
from pipelines.llm.failures import failure_reason, run_failures
from pipelines.llm.requests import parse_reply
from tests.support.fake_server import Dialect, FakeReply


class Label(BaseModel):
    label: str


def _requests(n: int) -> list[LLMRequest]:
    return [
        LLMRequest(f"i{k}", [{"role": "user", "content": f"q{k}"}], schema=Label) for k in range(n)
    ]


def _label(body: dict, n: int) -> str:
    return json.dumps({"label": body["messages"][0]["content"].split("\n")[0]})


def _run(store, config, n=3):
    run_id = start_run(store, RunSpec("test.modes", backend="openai", model=config.model))
    gateway = Gateway(store, config, run_id)
    return gateway, run_id, gateway.run(_requests(n))


def _formats(server) -> list[str | None]:
    return [(b.get("response_format") or {}).get("type") for b in server.log.bodies]


def test_llama_cpp_rejection_moves_to_json_object_with_schema_at_once(store, fake_llm):
    server = fake_llm(Dialect("llama_cpp_python", _label))
    config = fake_llm.config(server, concurrency=1)
    gateway, run_id, results = _run(store, config)
    assert all(r.ok and r.mode == "json_object" for r in results)
    # One rejected json_schema call, no retries of it, then json_object for every item.
    assert _formats(server) == ["json_schema", "json_object", "json_object", "json_object"]
    assert server.log.bodies[1]["response_format"]["schema"] == Label.model_json_schema()
    assert results[0].attempts == 2
    assert remembered_mode(store, server.base_url, "fake-model") == "json_object"
    reason = endpoint_modes(store).iloc[0]["reason"]
    assert "format rejected (json_schema)" in reason and "response_format" in reason
    # A later run starts in the remembered mode: no rejected call at all.
    server.log.bodies.clear()
    _, _, replay = _run(store, config, n=2)
    assert all(r.cached for r in replay) and not server.log.bodies
    fresh = Gateway(store, config, run_id)
    fresh.run([LLMRequest("x", [{"role": "user", "content": "new"}], schema=Label)])
    assert _formats(server) == ["json_object"]
    assert fresh.mode_info()["mode_source"].startswith("remembered")


def test_a_server_without_response_format_gets_prompt_instructions(store, fake_llm):
    def chatty(body, n):  # prose around the JSON, as small models write without a grammar
        return f"Sure! Here it is: {_label(body, n)} Hope that helps."

    server = fake_llm(Dialect("no_response_format", chatty))
    _, run_id, results = _run(store, fake_llm.config(server, concurrency=1))
    assert all(r.ok for r in results) and [r.parsed.label for r in results] == ["q0", "q1", "q2"]
    assert _formats(server)[:3] == ["json_schema", "json_object", None]
    prompt_body = server.log.bodies[2]
    assert "response_format" not in prompt_body
    assert '"label"' in prompt_body["messages"][-1]["content"]  # the schema, as instructions
    assert remembered_mode(store, server.base_url, "fake-model") == "prompt"


def test_concurrent_rejections_step_down_once(store, fake_llm):
    server = fake_llm(Dialect("no_json_schema", _label))
    _, run_id, results = _run(store, fake_llm.config(server, concurrency=4), n=12)
    assert all(r.ok for r in results)
    assert _formats(server).count("json_schema") <= 4  # only the first in-flight wave
    assert _formats(server).count("json_object") == 12
    calls = store.df("SELECT * FROM llm_calls WHERE run_id = ?", [run_id])
    assert (calls.status == "ok").all() and calls.attempts.max() == 2


def test_a_pinned_mode_fails_fast_and_says_why(store, fake_llm):
    server = fake_llm(Dialect("llama_cpp_python", _label))
    config = fake_llm.config(server, concurrency=1, structured="json_schema")
    _, run_id, results = _run(store, config, n=2)
    assert [r.status for r in results] == ["failed", "failed"]
    assert len(server.log.bodies) == 2  # no retries of a rejected format
    assert results[0].reason == "format rejected"
    summary = run_failures(store, run_id)
    assert summary["by_reason"] == {"format rejected": 2}
    assert "Input should be 'text' or 'json_object'" in summary["first"]
    per_run = llm_failure_counts(store, [run_id])  # what the Runs page lists per run
    assert per_run[["reason", "failed"]].values.tolist() == [["format rejected", 2]]


def test_transient_errors_are_still_retried(store, fake_llm):
    def flaky(body, n):
        return FakeReply(status=503, content="overloaded") if n == 0 else _label(body, n)

    server = fake_llm(flaky)
    _, _, results = _run(store, fake_llm.config(server, concurrency=1), n=1)
    assert results[0].ok and results[0].attempts == 2 and results[0].mode == "json_schema"


def test_cache_replays_under_the_remembered_mode_with_the_server_down(store, fake_llm):
    server = fake_llm(Dialect("llama_cpp_python", _label))
    config = fake_llm.config(server, concurrency=2)
    _run(store, config)
    server.stop()
    _, rerun, replay = _run(store, config)
    assert all(r.ok and r.cached for r in replay)


def test_failure_reasons_are_categorised():
    assert failure_reason("malformed reply: label: Field required") == "malformed reply"
    assert failure_reason("truncated reply (finish_reason=length)") == "truncated reply"
    assert failure_reason("APITimeoutError: Request timed out.") == "timeout"
    assert failure_reason("RateLimitError: Error code: 429") == "rate limited"
    assert failure_reason("InternalServerError: Error code: 500") == "server error"
    assert failure_reason("format rejected (json_schema): ...") == "format rejected"


def test_tolerant_parsing_and_config_validation():
    request = LLMRequest("a", [], schema=Label)
    assert parse_reply(request, 'Answer:\n```json\n{"label": "x"}\n```').label == "x"
    assert parse_reply(request, 'I think {"label": "y"} is right').label == "y"
    with pytest.raises(ValueError, match="malformed reply"):
        parse_reply(request, "no json here")
    with pytest.raises(ValueError, match="structured"):
        load_config({"structured": "xml"})
    assert load_config({}).structured == "auto"


def test_judge_cli_prints_failures_by_reason_and_the_first_in_full(store, fake_llm, monkeypatch):
    from typer.testing import CliRunner

    from pipelines.cli import app, load_commands
    from tests.support.lfvqa_rows import build_slice

    load_commands()
    build_slice(store)
    server = fake_llm(Dialect("llama_cpp_python", lambda body, n: "I cannot say."))
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-cli-0000")
    monkeypatch.setenv("STORYSCOPE_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("STORYSCOPE_LLM_BACKOFF_BASE_S", "0")
    args = ["judge", "--backend", "openai", "--base-url", server.base_url, "--model", "m"]
    args += ["--limit", "2", "--store", str(store.path)]
    dry = CliRunner().invoke(app, [*args, "--dry-run"])
    assert "structured output: json_schema (first try" in dry.output
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "failed 2" in result.output
    assert "failures by reason: malformed reply 2" in result.output
    assert "first failure: malformed reply" in result.output
    again = CliRunner().invoke(app, [*args, "--dry-run"])
    assert "structured output: json_object (remembered" in again.output
