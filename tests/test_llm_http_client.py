"""The lean httpx client under the gateway's openai client sends what the library's would.

Requests go to an in-memory transport that records them, so the comparison is exact: the same
method, URL, body and headers (apart from the per-request idempotency key) through the lean
client's shortcut as through the library's own build-and-send path; a redirect and a cookie
still go the library's way.
"""

from __future__ import annotations

import asyncio
import json

import openai

try:  # the HTTP library the installed openai client is built on
    import httpx2 as http
except ImportError:  # openai 1.x
    import httpx as http

from pipelines.llm.transport import LeanAsyncClient

BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "héllo"}]}).encode()
REPLY = json.dumps({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]})


class _Recorder(http.AsyncBaseTransport):
    """Answers from a list of (status, headers) in turn, recording every request."""

    def __init__(self, replies=None) -> None:
        self.replies = list(replies or [])
        self.requests: list[http.Request] = []

    async def handle_async_request(self, request: http.Request) -> http.Response:
        await request.aread()
        self.requests.append(request)
        status, headers = self.replies.pop(0) if self.replies else (200, {})
        return http.Response(status, headers=headers, content=REPLY.encode())


def _post(http_client, content: bytes = BODY) -> http.Response:
    async def go():
        client = openai.AsyncOpenAI(
            api_key="sk-test", base_url="http://example.test/v1", http_client=http_client
        )
        try:
            return await client.post("/chat/completions", cast_to=http.Response, content=content)
        finally:
            await client.close()

    return asyncio.run(go())


def _comparable(request: http.Request) -> tuple:
    headers = sorted(
        (k.lower(), v) for k, v in request.headers.multi_items() if k.lower() != "idempotency-key"
    )
    return request.method, str(request.url), request.content, headers


def test_lean_client_sends_what_the_library_client_sends():
    lean, library = _Recorder(), _Recorder()
    reply = _post(LeanAsyncClient(transport=lean))
    _post(openai.DefaultAsyncHttpxClient(transport=library))
    assert _comparable(lean.requests[0]) == _comparable(library.requests[0])
    assert lean.requests[0].headers["authorization"] == "Bearer sk-test"
    assert json.loads(reply.text)["choices"][0]["message"]["content"] == "hi"
    assert reply.request is lean.requests[0]
    # the per-phase timeouts reach the transport as the library sets them
    assert lean.requests[0].extensions["timeout"] == library.requests[0].extensions["timeout"]


def test_lean_client_follows_a_redirect_the_library_way():
    moved = (307, {"location": "http://example.test/v2/chat/completions"})
    transport = _Recorder([moved, (200, {})])
    reply = _post(LeanAsyncClient(transport=transport))
    assert reply.status_code == 200
    # a 307 keeps the method and body; the original is not sent twice
    urls = [str(r.url) for r in transport.requests]
    assert urls == [
        "http://example.test/v1/chat/completions",
        "http://example.test/v2/chat/completions",
    ]
    assert all(r.method == "POST" and r.content == BODY for r in transport.requests)


def test_lean_client_keeps_cookies_the_server_sets():
    transport = _Recorder([(200, {"set-cookie": "route=a1; Path=/"}), (200, {})])
    client = LeanAsyncClient(transport=transport)

    async def twice():
        api = openai.AsyncOpenAI(api_key="k", base_url="http://example.test/v1", http_client=client)
        for _ in range(2):
            await api.post("/chat/completions", cast_to=http.Response, content=BODY)

    asyncio.run(twice())
    assert client.cookies.get("route") == "a1"
    # a client holding cookies builds its requests the library's way, which sends them
    assert transport.requests[1].headers.get("cookie") == "route=a1"
