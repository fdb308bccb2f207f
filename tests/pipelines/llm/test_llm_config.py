"""Gateway configuration precedence: overrides > env > secrets.toml > defaults."""

from __future__ import annotations

import pytest

from pipelines.llm.config import LLMConfig, load_config
from pipelines.llm.redact import redact


def test_precedence(tmp_path, monkeypatch):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(
        'OPENAI_API_KEY = "sk-from-secrets-123456"\n'
        '[llm]\nmodel = "secret-model"\nconcurrency = 3\n'
        'base_url = "http://secrets/v1"\n'
    )
    for name in ("STORYSCOPE_LLM_API_KEY", "OPENAI_API_KEY", "STORYSCOPE_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STORYSCOPE_LLM_MODEL", "env-model")
    config = load_config({"concurrency": None, "base_url": "http://cli/v1"}, secrets)
    assert config.model == "env-model"
    assert config.concurrency == 3
    assert config.base_url == "http://cli/v1"
    assert config.api_key == "sk-from-secrets-123456"
    assert "sk-from" not in repr(config)


def test_bad_value_names_setting_not_value(tmp_path, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_LLM_CONCURRENCY", "many")
    with pytest.raises(ValueError, match="invalid LLM setting .concurrency."):
        load_config(secrets_path=tmp_path / "none.toml")


def test_cost_and_redact():
    config = LLMConfig(price_in_per_mtok=2.5, price_out_per_mtok=10.0)
    assert config.cost(1_000_000, 100_000) == pytest.approx(3.5)
    assert (
        redact("Bearer abcdefghijk and sk-xyz1234567", None) == "Bearer [redacted] and [redacted]"
    )
    assert redact("key=my-own-secret", "my-own-secret") == "key=[redacted]"


def test_http_transport_defaults_to_aiohttp_and_the_old_lean_name_still_loads(tmp_path):
    none = tmp_path / "none.toml"
    assert load_config(secrets_path=none).http_transport == "aiohttp"
    # job params saved before the aiohttp client name the removed h11 transport `lean`
    assert load_config({"http_transport": "lean"}, secrets_path=none).http_transport == "aiohttp"
    with pytest.raises(ValueError, match="http_transport"):
        load_config({"http_transport": "h2"}, secrets_path=none)
