"""The gateway against the scripted local server: caching, retries, faults, budget, key hygiene."""

from __future__ import annotations

import json

from pydantic import BaseModel

from data_access.tables.runs import RunSpec, start_run
from pipelines.llm import Gateway, LLMRequest
from tests.support.fake_llm import TEST_KEY
from tests.support.fake_server import FakeReply


class Label(BaseModel):
    label: str


def _requests(n: int) -> list[LLMRequest]:
    return [
        LLMRequest(
            f"item{i}",
            [{"role": "user", "content": f"q{i}"}],
            schema=Label,
            params={"temperature": 0},
        )
        for i in range(n)
    ]


def _run(store, config, requests, **kwargs):
    run_id = start_run(store, RunSpec("test.llm", backend="openai", model=config.model))
    gateway = Gateway(store, config, run_id, **kwargs)
    return gateway, run_id, gateway.run(requests)


def test_replies_are_validated_cached_and_replayed_offline(store, fake_llm):
    server = fake_llm(lambda body, n: json.dumps({"label": body["messages"][0]["content"]}))
    config = fake_llm.config(server, price_in_per_mtok=1.0, price_out_per_mtok=2.0)
    _, run_id, results = _run(store, config, _requests(5))
    assert [r.parsed.label for r in results] == [f"q{i}" for i in range(5)]
    assert not any(r.cached for r in results) and len(server.log.bodies) == 5
    usage = store.df("SELECT * FROM runs WHERE run_id = ?", [run_id]).iloc[0]
    assert usage.prompt_tokens > 0 and usage.cost_usd > 0
    assert store.scalar("SELECT count(*) FROM llm_cache") == 5
    server.stop()  # endpoint down: the rerun replays from the cache
    _, rerun_id, replay = _run(store, config, _requests(5))
    assert all(r.ok and r.cached for r in replay)
    assert [r.parsed.label for r in replay] == [f"q{i}" for i in range(5)]
    calls = store.df("SELECT * FROM llm_calls WHERE run_id = ?", [rerun_id])
    assert len(calls) == 5 and calls.cached.all()


def test_429_with_retry_after_and_500_are_retried(store, fake_llm):
    def handler(body, n):
        if n == 0:
            return FakeReply(status=429, retry_after=0.05)
        if n == 1:
            return FakeReply(status=500)
        return '{"label": "ok"}'

    server = fake_llm(handler)
    _, run_id, results = _run(store, fake_llm.config(server, concurrency=1), _requests(1))
    assert results[0].ok and results[0].attempts == 3
    assert len(server.log.bodies) == 3


def test_malformed_and_truncated_replies_fail_with_raw_text(store, fake_llm):
    def handler(body, n):
        text = body["messages"][0]["content"]
        if text == "q0":
            return "this is not json"
        if text == "q1":
            return FakeReply(content='{"label": "cut', finish_reason="length")
        if text == "q2":
            return FakeReply(raw_body="<html>gateway error</html>")
        return '{"label": "fine"}'

    server = fake_llm(handler)
    _, run_id, results = _run(store, fake_llm.config(server, parse_retries=1), _requests(4))
    assert [r.status for r in results] == ["failed", "failed", "failed", "ok"]
    assert results[0].raw == "this is not json" and results[0].attempts == 2
    assert "truncated" in results[1].error
    assert "gateway error" in results[2].raw
    failed = store.df("SELECT * FROM llm_calls WHERE run_id = ? AND status = 'failed'", [run_id])
    assert sorted(failed.item_id) == ["item0", "item1", "item2"]
    assert failed.raw_reply.notna().all()
    assert store.scalar("SELECT count(*) FROM llm_cache") == 1  # failures are never cached


def test_timeouts_are_retried_then_recorded(store, fake_llm):
    server = fake_llm(lambda body, n: FakeReply(content='{"label": "late"}', delay_s=1.0))
    config = fake_llm.config(server, timeout_s=0.2, max_retries=1)
    _, _, results = _run(store, config, _requests(1))
    assert results[0].status == "failed" and results[0].attempts == 2
    assert "Timeout" in results[0].error


def test_budget_stops_sending_cleanly(store, fake_llm):
    server = fake_llm(
        lambda body, n: FakeReply(
            content='{"label": "x"}', prompt_tokens=100, completion_tokens=100
        )
    )
    config = fake_llm.config(server, concurrency=1, budget_tokens=450)
    gateway, run_id, results = _run(store, config, _requests(6))
    assert [r.status for r in results] == ["ok"] * 3 + ["skipped"] * 3
    assert gateway.stop_reason == "budget" and len(server.log.bodies) == 3
    assert (
        store.scalar(
            "SELECT prompt_tokens + completion_tokens FROM runs WHERE run_id = ?", [run_id]
        )
        == 600
    )


def test_concurrency_is_bounded(store, fake_llm):
    import threading

    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    def handler(body, n):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        import time

        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return '{"label": "x"}'

    server = fake_llm(handler)
    _, _, results = _run(store, fake_llm.config(server, concurrency=3), _requests(12))
    assert all(r.ok for r in results)
    assert 2 <= state["peak"] <= 3


def test_key_never_reaches_store_or_errors(store, fake_llm, store_path):
    # A hostile endpoint that echoes the bearer token back in errors and replies. (A 401 stops
    # the run at once: tests/pipelines/llm/test_llm_refusals.py checks that its echo is scrubbed
    # too.)
    def handler(body, n):
        if n % 2 == 0:
            return FakeReply(status=400, content=f"Unknown parameter; your key is {TEST_KEY}")
        return f"not json, and your key is {TEST_KEY}"

    server = fake_llm(handler)
    config = fake_llm.config(server, max_retries=0, parse_retries=0, concurrency=1)
    _, run_id, results = _run(store, config, _requests(4))
    assert server.log.auth_headers[0] == f"Bearer {TEST_KEY}"  # it was sent...
    for result in results:
        assert TEST_KEY not in (result.error or "") + (result.raw or "")
    assert TEST_KEY not in repr(config) and "api_key" not in config.public_dict()
    dumped = "".join(
        store.df(f"SELECT * FROM {t}").to_json() for t in ("llm_calls", "llm_cache", "runs", "jobs")
    )
    assert "SECRET" not in dumped
    assert b"SECRET" not in store_path.read_bytes()  # ...but never written anywhere


def test_cache_key_is_canonical_and_spliced_form_matches():
    from pipelines.llm import LLMConfig
    from pipelines.llm.requests import cache_key, response_format

    gateway = Gateway(None, LLMConfig(model="m"), "r")
    request = LLMRequest(
        "a", [{"role": "user", "content": "x"}], schema=Label, params={"temperature": 0, "seed": 1}
    )
    full = {**request.params, "response_format": response_format(request, "json_schema")}
    assert gateway.key_of(request) == cache_key("m", request.messages, full)
    assert cache_key("m", [{"role": "user", "content": "ab"}], {}) != cache_key(
        "m", [{"role": "user", "content": "a"}, {"role": "b", "content": ""}], {}
    )
    assert cache_key("m", request.messages, {"temperature": 0}) != cache_key(
        "m", request.messages, {"temperature": 1}
    )


def test_budget_is_per_run_across_gateways(store, fake_llm):
    server = fake_llm(
        lambda body, n: FakeReply(
            content='{"label": "x"}', prompt_tokens=100, completion_tokens=100
        )
    )
    config = fake_llm.config(server, concurrency=1, budget_tokens=450)
    run_id = start_run(store, RunSpec("test.llm", backend="openai", model=config.model))
    first = Gateway(store, config, run_id).run(_requests(3))
    assert [r.status for r in first] == ["ok"] * 3
    # A resumed run (new gateway, same run) has already spent 600 tokens: nothing is sent.
    later = Gateway(store, config, run_id).run(_requests(5)[3:])
    assert [r.status for r in later] == ["skipped", "skipped"] and len(server.log.bodies) == 3
