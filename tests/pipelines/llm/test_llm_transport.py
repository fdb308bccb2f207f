"""The gateway's HTTP clients under the openai client, against raw asyncio servers.

Each server here is a few lines of asyncio that answers with exact bytes, so the cases a
library server smooths over (chunked bodies, a keep-alive connection the server drops, no
reply at all) are exercised on the wire. Every case runs on both transports the gateway offers:
`aiohttp` (the default, openai's `DefaultAioHttpClient`) and `httpx` (the library's own).
"""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

try:  # the HTTP library the installed openai client is built on
    import httpx2 as http
except ImportError:  # openai 1.x
    import httpx as http

from data_access.tables.runs import RunSpec, start_run
from pipelines.llm import Gateway, LLMRequest
from pipelines.llm.calls import openai_clients
from pipelines.llm.config import LLMConfig
from tests.support.raw_http import TRANSPORTS, read_request

REPLY = json.dumps({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]})


def _response(body: str, chunked: bool = False, close: bool = False) -> bytes:
    data = body.encode()
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    if close:
        head += "Connection: close\r\n"
    if chunked:
        half = len(data) // 2
        chunks = b"".join(
            f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in (data[:half], data[half:])
        )
        return (head + "Transfer-Encoding: chunked\r\n\r\n").encode() + chunks + b"0\r\n\r\n"
    return (head + f"Content-Length: {len(data)}\r\n\r\n").encode() + data


class _Server:
    """Answers each request on a connection with `behaviour(n_on_connection)` bytes (None: drop;
    a float: stall that long). With `replies_per_connection`, closes the connection after
    that many replies (an idle keep-alive connection the server ends)."""

    def __init__(self, behaviour, replies_per_connection: int | None = None) -> None:
        self.behaviour = behaviour
        self.replies_per_connection = replies_per_connection
        self.connections = 0
        self.requests: list[bytes] = []

    async def handle(self, reader, writer) -> None:
        self.connections += 1
        n = 0
        while (request := await read_request(reader)) is not None:
            self.requests.append(request)
            reply = self.behaviour(n)
            n += 1
            if reply is None:
                break
            if isinstance(reply, float):
                await asyncio.sleep(reply)
                continue
            writer.write(reply)
            await writer.drain()
            if b"Connection: close" in reply or n == self.replies_per_connection:
                break
        writer.close()

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()


def _client(url: str, transport: str, timeout: float = 5.0) -> openai.AsyncOpenAI:
    config = LLMConfig(
        base_url=url, api_key="sk-test-transport", timeout_s=timeout, http_transport=transport
    )
    clients, _ = openai_clients(config, concurrency=4)
    return clients[0]


def _plain_requests(n: int) -> list[LLMRequest]:
    return [
        LLMRequest(f"i{k}", [{"role": "user", "content": f"q{k}"}], parse=str) for k in range(n)
    ]


async def _post(client) -> dict:
    response = await client.post("/chat/completions", cast_to=http.Response, body={"m": 1})
    return json.loads(response.text)


def _run(coro):
    return asyncio.run(coro)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_keep_alive_connection_is_reused_and_request_is_well_formed(transport):
    async def scenario():
        async with _Server(lambda n: _response(REPLY)) as server:
            client = _client(server.url, transport)
            replies = [await _post(client) for _ in range(3)]
            await client.close()
            return server, replies

    server, replies = _run(scenario())
    assert [r["choices"][0]["message"]["content"] for r in replies] == ["hi"] * 3
    assert server.connections == 1  # one socket for three calls
    first = server.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    head, body = first.split(b"\r\n\r\n", 1)
    assert b"\r\nauthorization: bearer sk-test-transport" in head.lower()
    assert b"\r\nhost: 127.0.0.1:" in head.lower() and json.loads(body) == {"m": 1}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_chunked_reply_is_reassembled(transport):
    async def scenario():
        async with _Server(lambda n: _response(REPLY, chunked=True)) as server:
            client = _client(server.url, transport)
            reply = await _post(client)
            await client.close()
            return reply

    assert _run(scenario())["choices"][0]["message"]["content"] == "hi"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_server_closing_idle_keep_alive_connection_is_survived(transport):
    # The server answers once per connection and then closes it: every call after the first
    # finds its idle connection dead and must go out on a fresh one.
    async def scenario():
        async with _Server(lambda n: _response(REPLY), replies_per_connection=1) as server:
            client = _client(server.url, transport)
            replies = []
            for _ in range(3):
                replies.append(await _post(client))
                await asyncio.sleep(0.05)  # let the server's close arrive
            await client.close()
            return server, replies

    server, replies = _run(scenario())
    assert len(replies) == 3 and server.connections == 3


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_request_dropped_on_a_reused_connection_is_sent_again_by_the_gateway(transport, store):
    # The server answers the first request on each connection and drops the second unanswered
    # (the race of a server ending an idle connection as a request arrives). A POST is not
    # idempotent, so the HTTP client does not resend it; the gateway's retry does, on a fresh
    # connection, and the item succeeds.
    async def scenario():
        async with _Server(lambda n: _response(REPLY) if n == 0 else None) as server:
            config = LLMConfig(
                base_url=server.url,
                api_key="sk-test-transport",
                model="m",
                concurrency=1,
                backoff_base_s=0.01,
                structured="none",
                http_transport=transport,
            )
            run_id = start_run(store, RunSpec("test.transport", backend="openai", model="m"))
            results = await Gateway(store, config, run_id).arun(_plain_requests(3))
            return server, results

    server, results = _run(scenario())
    assert [r.ok for r in results] == [True] * 3
    assert [r.attempts for r in results] == [1, 2, 2] and server.connections == 3
    assert [r.raw for r in results] == ["hi"] * 3


def _first_error(behaviour, transport: str) -> openai.APIError:
    """The error the openai client raises for one request to a `behaviour` server."""

    async def scenario():
        async with _Server(behaviour) as server:
            client = _client(server.url, transport)
            try:
                with pytest.raises(openai.APIError) as caught:
                    await _post(client)
            finally:
                await client.close()
            return caught.value

    return _run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_dropped_connection_without_reply_is_a_connection_error(transport):
    error = _first_error(lambda n: None, transport)
    assert isinstance(error, openai.APIConnectionError)
    assert not isinstance(error, openai.APITimeoutError)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_connection_dropped_mid_reply_is_a_connection_error(transport):
    cut = _response(REPLY).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)[:-5]
    error = _first_error(lambda n: cut, transport)
    assert isinstance(error, openai.APIConnectionError)
    assert not isinstance(error, openai.APITimeoutError)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_slow_server_is_a_timeout_and_refused_port_a_connection_error(transport):
    async def scenario():
        async with _Server(lambda n: 5.0) as server:  # never answers in time
            client = _client(server.url, transport, timeout=0.3)
            with pytest.raises(openai.APITimeoutError):
                await _post(client)
            await client.close()
        refused = _client(server.url, transport)  # the server is closed now
        with pytest.raises(openai.APIConnectionError) as caught:
            await _post(refused)
        await refused.close()
        assert not isinstance(caught.value, openai.APITimeoutError)

    _run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_http_error_status_reaches_the_openai_client(transport):
    body = json.dumps({"error": {"message": "response_format json_schema not supported"}})
    reply = _response(body).replace(b"200 OK", b"400 Bad Request")
    error = _first_error(lambda n: reply, transport)
    assert isinstance(error, openai.BadRequestError)
    assert error.status_code == 400 and "json_schema" in error.message
