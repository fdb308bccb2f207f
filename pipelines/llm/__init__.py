"""The LLM gateway: the one way StoryScope calls a model (DESIGN.md, "LLM calls").

Quick use::

    from data_access.tables.runs import RunSpec, start_run, end_run
    from pipelines.llm import Gateway, LLMRequest, load_config

    config = load_config({"model": "gpt-4o-mini"})       # env / secrets.toml / overrides
    run_id = start_run(store, RunSpec("judge", backend="openai", model=config.model,
                                      prompt_version="judge-v1", params=config.public_dict()))
    gateway = Gateway(store, config, run_id)
    results = gateway.run([LLMRequest(item_id="a1", messages=[...], schema=MyReply)],
                          on_batch=lambda cursor, batch: write_my_rows(cursor, batch))
    end_run(store, run_id, n_items=len(results), n_failed=sum(not r.ok for r in results))

- `load_config(overrides)` -> `LLMConfig` (base URL, model, key, concurrency, timeout,
  retries, budget, prices, structured-output mode). Env: STORYSCOPE_LLM_BASE_URL,
  STORYSCOPE_LLM_MODEL, STORYSCOPE_LLM_API_KEY or OPENAI_API_KEY, ... (see `config`).
- `LLMRequest(item_id, messages, schema=PydanticModel | parse=fn, params={...})`.
- `Gateway(store, config, run_id).run(requests, on_batch=None)` -> `list[LLMResult]` in
  request order; each has `status` (ok | failed | skipped), `ok`, `parsed`, `raw`, `error`,
  `cached`, `usage` (tokens, cost), `attempts`, `latency_ms`, `cache_key`.
  `on_batch(cursor, results)` runs inside the transaction that records the batch's cache
  entries and call rows: write your derived rows there and a killed process never leaves a
  half-written batch. `gateway.spent` is the run's usage so far; `gateway.stop()` stops
  sending; `gateway.stop_reason` is "budget" when the budget ended the run.
- The cache (`llm_cache`) is keyed by sha256(model, messages, params incl. response_format);
  a rerun replays from it with the endpoint down. Only validated replies are cached.
- A refused key (HTTP 401 / 403) or a redirect off the configured origin stops the run after
  the first request: `run` records what was answered, then raises `EndpointRefused` (whose
  message never holds the key). Redirects are never followed to another origin.
- Tests and benchmarks: `tests.support.fake_server.FakeLLMServer(handler)` (scripted local
  OpenAI-compatible server) and the pytest fixture `fake_llm` (tests/support/fake_llm.py).
- The key never reaches the store, logs, errors or job records: `LLMConfig.public_dict()`
  omits it and `redact()` scrubs every error and raw reply.
"""

from pipelines.llm.calls import EndpointRefused
from pipelines.llm.config import LLMConfig, load_config
from pipelines.llm.gateway import Gateway
from pipelines.llm.redact import redact
from pipelines.llm.requests import LLMRequest, LLMResult, Usage, cache_key, parse_reply

__all__ = [
    "EndpointRefused",
    "Gateway",
    "LLMConfig",
    "LLMRequest",
    "LLMResult",
    "Usage",
    "cache_key",
    "load_config",
    "parse_reply",
    "redact",
]
