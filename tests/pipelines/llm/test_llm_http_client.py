"""The gateway's openai client over its HTTP clients: what it sends, the redirects it follows
and the ones it refuses (the gateway does not trust the server).

Requests go to an in-memory transport that records them, so the comparison is exact: the
gateway's client (aiohttp or httpx underneath, kept to its origin) sends the same method, URL,
body and headers (apart from the per-request idempotency key) as the library's default client.
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

from pipelines.llm.calls import openai_client
from pipelines.llm.config import LLMConfig
from pipelines.llm.http_clients import AioHttpClient, OffOriginRedirect, origin

BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "héllo"}]}).encode()
REPLY = json.dumps({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]})
CONFIG = LLMConfig(base_url="http://example.test/v1", api_key="sk-test")
HTTP_CLIENTS = {"aiohttp": AioHttpClient, "httpx": openai.DefaultAsyncHttpxClient}


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


def _post(client: openai.AsyncOpenAI, times: int = 1) -> http.Response:
    async def go():
        try:
            for _ in range(times):
                reply = await client.post("/chat/completions", cast_to=http.Response, content=BODY)
            return reply
        finally:
            await client.close()

    return asyncio.run(go())


def _comparable(request: http.Request) -> tuple:
    headers = sorted(
        (k.lower(), v) for k, v in request.headers.multi_items() if k.lower() != "idempotency-key"
    )
    return request.method, str(request.url), request.content, headers


@pytest.mark.parametrize("name", HTTP_CLIENTS)
def test_gateway_client_sends_what_the_library_client_sends(name):
    ours, library = _Recorder(), _Recorder()
    reply = _post(openai_client(CONFIG, HTTP_CLIENTS[name](transport=ours)))
    plain = openai.AsyncOpenAI(
        api_key="sk-test",
        base_url="http://example.test/v1",
        timeout=CONFIG.timeout_s,
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(transport=library),
    )
    _post(plain)
    assert _comparable(ours.requests[0]) == _comparable(library.requests[0])
    assert ours.requests[0].headers["authorization"] == "Bearer sk-test"
    assert json.loads(reply.text)["choices"][0]["message"]["content"] == "hi"


@pytest.mark.parametrize("name", HTTP_CLIENTS)
def test_a_redirect_within_the_endpoint_is_followed(name):
    moved = (307, {"location": "http://example.test/v2/chat/completions"})
    transport = _Recorder([moved, (200, {})])
    reply = _post(openai_client(CONFIG, HTTP_CLIENTS[name](transport=transport)))
    assert reply.status_code == 200
    # a 307 keeps the method and body; the original is not sent twice
    urls = [str(r.url) for r in transport.requests]
    assert urls == [
        "http://example.test/v1/chat/completions",
        "http://example.test/v2/chat/completions",
    ]
    assert all(r.method == "POST" and r.content == BODY for r in transport.requests)


@pytest.mark.parametrize("name", HTTP_CLIENTS)
@pytest.mark.parametrize(
    "location",
    [
        "http://elsewhere.test/v1/chat/completions",  # another host
        "https://example.test/v1/chat/completions",  # another scheme
        "http://example.test:8080/v1/chat/completions",  # another port
    ],
)
def test_a_redirect_off_the_endpoint_is_refused_before_anything_is_sent(name, location):
    transport = _Recorder([(308, {"location": location})])
    with pytest.raises(OffOriginRedirect) as caught:
        _post(openai_client(CONFIG, HTTP_CLIENTS[name](transport=transport)))
    assert [str(r.url) for r in transport.requests] == ["http://example.test/v1/chat/completions"]
    assert caught.value.target == origin(location)
    assert caught.value.endpoint == "http://example.test:80"


@pytest.mark.parametrize("name", HTTP_CLIENTS)
def test_cookies_the_server_sets_are_sent_back(name):
    transport = _Recorder([(200, {"set-cookie": "route=a1; Path=/"}), (200, {})])
    _post(openai_client(CONFIG, HTTP_CLIENTS[name](transport=transport)), times=2)
    assert transport.requests[1].headers.get("cookie") == "route=a1"


def test_origin_spells_out_the_default_port():
    assert origin("https://api.openai.com/v1") == "https://api.openai.com:443"
    assert origin("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"
