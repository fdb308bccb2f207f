"""Pytest fixture `fake_llm`: a scripted local OpenAI-compatible server per test.

    def test_x(fake_llm, store):
        server = fake_llm(lambda body, n: '{"label": "asserted"}')
        config = fake_llm.config(server)            # LLMConfig pointed at it, fast backoff

The handler gets (request body, 0-based request number) and returns a str (the reply content)
or a `FakeReply` (latency, 429 + Retry-After, 500, malformed body, truncation). Every server
started in a test is stopped when the test ends.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipelines.llm.config import LLMConfig
from tests.support.fake_server import FakeLLMServer, FakeReply  # noqa: F401 (re-export)

TEST_KEY = "sk-test-SECRET-0123456789abcdef"


# For calls that are not meant to time out: scripted replies come at once, and the fixture's
# 2-s timeout is for tests that time out on purpose. Ray workers on a loaded two-core machine
# can wait longer than that for a core, and a timed-out call is retried and recorded as a
# failure the test did not script.
PATIENT_TIMEOUT_S = 30.0


class _FakeLLMFactory:
    def __init__(self) -> None:
        self.servers: list[FakeLLMServer] = []

    def __call__(self, handler, **kwargs) -> FakeLLMServer:
        server = FakeLLMServer(handler, max_lifetime_s=120, **kwargs).start()
        self.servers.append(server)
        return server

    @staticmethod
    def config(server: FakeLLMServer, **changes) -> LLMConfig:
        """An LLMConfig for `server`: test key, short timeouts, millisecond backoff."""
        base = LLMConfig(
            base_url=server.base_url,
            model="fake-model",
            api_key=TEST_KEY,
            concurrency=4,
            timeout_s=2.0,
            max_retries=3,
            parse_retries=1,
            backoff_base_s=0.01,
            backoff_max_s=0.2,
        )
        return replace(base, **changes)

    def stop_all(self) -> None:
        for server in self.servers:
            server.stop()


@pytest.fixture
def fake_llm():
    """A factory starting scripted OpenAI-compatible servers on loopback (stopped after)."""
    factory = _FakeLLMFactory()
    yield factory
    factory.stop_all()
