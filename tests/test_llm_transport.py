"""The gateway's lean HTTP/1.1 transport under the openai client, against raw asyncio servers.

Each server here is a few lines of asyncio that answers with exact bytes, so the cases a
library server smooths over (chunked bodies, a keep-alive connection the server drops, no
reply at all) are exercised on the wire.
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

from pipelines.llm.transport import LeanAsyncTransport

REPLY = json.dumps({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]})


async def _read_request(reader: asyncio.StreamReader) -> bytes | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return head + await reader.readexactly(length)


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
    """Answers each request on a connection with `behaviour(n_on_connection)` bytes (None: drop)."""

    def __init__(self, behaviour) -> None:
        self.behaviour = behaviour
        self.connections = 0
        self.requests: list[bytes] = []

    async def handle(self, reader, writer) -> None:
        self.connections += 1
        n = 0
        while (request := await _read_request(reader)) is not None:
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
            if b"Connection: close" in reply:
                break
        writer.close()

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()


def _client(url: str, timeout: float = 5.0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="sk-test-transport",
        base_url=url,
        max_retries=0,
        timeout=timeout,
        http_client=openai.DefaultAsyncHttpxClient(transport=LeanAsyncTransport(max_idle=4)),
    )


async def _post(client) -> dict:
    response = await client.post("/chat/completions", cast_to=http.Response, body={"m": 1})
    return json.loads(response.text)


def _run(coro):
    return asyncio.run(coro)


def test_keep_alive_connection_is_reused_and_request_is_well_formed():
    async def scenario():
        async with _Server(lambda n: _response(REPLY)) as server:
            client = _client(server.url)
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


def test_chunked_reply_is_reassembled():
    async def scenario():
        async with _Server(lambda n: _response(REPLY, chunked=True)) as server:
            client = _client(server.url)
            reply = await _post(client)
            await client.close()
            return reply

    assert _run(scenario())["choices"][0]["message"]["content"] == "hi"


def test_server_closing_keep_alive_connection_is_survived():
    # The server answers once per connection and then closes: every call after the first
    # finds its idle connection dead and must go out again on a fresh one.
    async def scenario():
        async with _Server(lambda n: _response(REPLY) if n == 0 else None) as server:
            client = _client(server.url)
            replies = []
            for _ in range(3):
                replies.append(await _post(client))
                await asyncio.sleep(0.05)  # let the server's close arrive (or not)
            await client.close()
            return server, replies

    server, replies = _run(scenario())
    assert len(replies) == 3 and server.connections >= 3


def test_dropped_connection_without_reply_is_a_connection_error():
    async def scenario():
        async with _Server(lambda n: None) as server:
            client = _client(server.url)
            try:
                with pytest.raises(openai.APIConnectionError) as caught:
                    await _post(client)
            finally:
                await client.close()
            return caught.value

    error = _run(scenario())
    assert not isinstance(error, openai.APITimeoutError)


def test_slow_server_is_a_timeout_and_refused_port_a_connection_error():
    async def scenario():
        async with _Server(lambda n: 5.0) as server:  # never answers in time
            client = _client(server.url, timeout=0.3)
            with pytest.raises(openai.APITimeoutError):
                await _post(client)
            await client.close()
        refused = _client(server.url)  # the server is closed now
        with pytest.raises(openai.APIConnectionError):
            await _post(refused)
        await refused.close()

    _run(scenario())


def test_http_error_status_reaches_the_openai_client():
    body = json.dumps({"error": {"message": "response_format json_schema not supported"}})

    def reply(n):
        return _response(body).replace(b"200 OK", b"400 Bad Request")

    async def scenario():
        async with _Server(reply) as server:
            client = _client(server.url)
            try:
                with pytest.raises(openai.BadRequestError) as caught:
                    await _post(client)
            finally:
                await client.close()
            return caught.value

    error = _run(scenario())
    assert error.status_code == 400 and "json_schema" in error.message
