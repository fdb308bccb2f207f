"""What every real-server test checks (tests/pipelines/llm/test_llm_real_server*.py): the plumbing,
not the tiny model's judgement — every item parsed and written or failed with its raw reply and a
reason, no protocol failure, usage recorded."""

from __future__ import annotations

from pipelines.llm import LLMConfig

# Failure reasons that mean the gateway and the server did not understand each other. The
# model writing bad or cut-short JSON (`malformed reply`, `truncated reply`) is its judgement.
PROTOCOL_FAILURES = {
    "format rejected",
    "request rejected",
    "server error",
    "connection error",
    "timeout",
    "other",
}


def real_config(server, **changes) -> LLMConfig:
    settings = dict(
        base_url=server.base_url,
        model=server.model,
        api_key="not-a-real-key",
        concurrency=2,
        timeout_s=240.0,
        max_retries=1,
        parse_retries=0,  # one try per item: the tiny model's judgement is not under test
        max_tokens=192,
    )
    settings.update(changes)
    return LLMConfig(**settings)


def check_plumbing(store, run_id: str, expect_calls: bool = True) -> dict:
    calls = store.df("SELECT * FROM llm_calls WHERE run_id = ?", [run_id])
    if expect_calls:
        assert len(calls) > 0, "the step made no LLM call"
    failed = calls[calls.status == "failed"]
    assert failed["reason"].notna().all()
    protocol = failed[failed["reason"].isin(PROTOCOL_FAILURES)]
    assert protocol.empty, protocol[["item_id", "reason", "error"]].to_dict("records")
    assert failed["raw_reply"].notna().all(), "a failed item lost its raw reply"
    run = store.df("SELECT * FROM runs WHERE run_id = ?", [run_id]).iloc[0]
    fresh = calls[~calls.cached]
    if len(fresh):
        assert run.prompt_tokens > 0 and run.completion_tokens > 0  # usage recorded
    return {"calls": len(calls), "failed": len(failed), "ok": int((calls.status == "ok").sum())}
