"""A call's total deadline (`STORYSCOPE_LLM_TIMEOUT`) on both HTTP transports: a loopback server
that sends its reply one byte every half second never trips a read timeout, and once held
`storyscope judge` forever. The call must end as a timeout, retried and then recorded."""

from __future__ import annotations

import asyncio
import threading

import pytest

from data_access.tables.runs import RunSpec, start_run
from pipelines.llm import Gateway, LLMRequest
from pipelines.llm.config import LLMConfig
from tests.support.raw_http import TRANSPORTS, read_request

# a reply that never ends: a status line, headers, then a body of spaces, byte by byte
_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"


class TricklingServer:
    """Answers every request one byte every `every_s` seconds, for as long as the client
    listens (a server that is slow but never silent)."""

    def __init__(self, every_s: float = 0.5) -> None:
        self.every_s = every_s
        self.requests = 0

    async def handle(self, reader, writer) -> None:
        if await read_request(reader) is None:
            return
        self.requests += 1
        position = 0
        try:
            while True:
                byte = _HEAD[position : position + 1] or b" "
                writer.write(byte)
                await writer.drain()
                position += 1
                await asyncio.sleep(self.every_s)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_trickling_server_meets_the_calls_total_deadline(transport, store):
    outcome: dict = {}

    async def scenario():
        async with TricklingServer() as server:
            config = LLMConfig(
                base_url=server.url,
                api_key="sk-test-deadline",
                model="m",
                concurrency=1,
                timeout_s=1.5,
                max_retries=1,
                backoff_base_s=0.01,
                structured="none",
                http_transport=transport,
            )
            run_id = start_run(store, RunSpec("test.deadline", backend="openai", model="m"))
            request = LLMRequest("i0", [{"role": "user", "content": "q"}], parse=str)
            outcome["results"] = await Gateway(store, config, run_id).arun([request])
            outcome["requests"] = server.requests

    # Without a total deadline the call never ends (the server trickles for 5 days); the
    # thread's join is only how this test notices a hang, not a speed limit.
    worker = threading.Thread(target=lambda: asyncio.run(scenario()), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), f"{transport}: the call hung on a trickling server"
    (result,) = outcome["results"]
    assert result.status == "failed" and result.attempts == 2, result
    assert result.reason == "timeout" and "Timeout" in result.error, result.error
    assert outcome["requests"] == 2
