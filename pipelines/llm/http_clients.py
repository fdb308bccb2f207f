"""The HTTP clients under the gateway's `openai` client (the gateway does not trust the server).

The default is openai's own aiohttp client (`openai[aiohttp]`: `DefaultAioHttpClient`, the
httpx-aiohttp adapter): aiohttp's connection pool and HTTP/1.1 parser cost less client CPU per
call than httpcore's and scale with many requests in flight. `httpx` keeps the HTTP library's
own transport (e.g. for an endpoint that needs HTTP/2).

Two rules hold for both:
- A request only ever goes to the configured endpoint's origin (scheme, host, port). The HTTP
  library follows redirects; a redirect to another origin is refused before anything is sent
  there (`OffOriginRedirect`), so prompts never reach a host the user did not configure.
- A connection the server dropped is a connection error, not a timeout (the adapter maps every
  aiohttp connection error to `ConnectTimeout`), so a failure's reason says what happened.
- A call has a total deadline (`STORYSCOPE_LLM_TIMEOUT`), from sending the request to the last
  byte of the reply. The HTTP libraries' timeouts bound each read only: a server that sends a
  byte every half second never trips them, and held a run forever.
"""

from __future__ import annotations

import asyncio
import ssl
from functools import lru_cache

import openai

try:  # the HTTP library the installed openai client is built on
    import httpx2 as _http
except ImportError:  # openai 1.x
    import httpx as _http

_DEFAULT_PORTS = {"http": 80, "https": 443}
_CONNECTIONS_PER_CLIENT = 8
# An idle keep-alive connection is dropped by the client after 1 s, well before servers drop
# theirs (uvicorn, under llama-cpp-python's server, after 5 s: the library default, so a
# connection reused at ~5 s could meet the server's close). A busy run reuses connections
# continuously; a POST that meets such a close is not resent by the HTTP client.
_LIMITS = _http.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=1.0)


class OffOriginRedirect(openai.OpenAIError):
    """The endpoint redirected a request to another origin; the redirect was not followed.

    An `openai.OpenAIError`, so the openai client passes it on as it is (no retry, no wrap).
    """

    def __init__(self, endpoint: str, target: str) -> None:
        super().__init__(
            f"the endpoint {endpoint} redirected the request to {target}, another origin; "
            "not followed (prompts go only to the configured endpoint)"
        )
        self.endpoint, self.target = endpoint, target


async def within_deadline(deadline_s: float | None, request, send):
    """`await send()`, which must finish within `deadline_s` seconds (None: no deadline).

    Raises:
        ReadTimeout: (the HTTP library's) the deadline passed first; the openai client takes it
            for a timeout like any other (retried, then recorded as one).
    """
    if deadline_s is None:
        return await send()
    scope = asyncio.timeout(deadline_s)
    try:
        async with scope:
            return await send()
    except TimeoutError as exc:
        if not scope.expired():
            raise
        message = f"no complete reply within {deadline_s:g} s (STORYSCOPE_LLM_TIMEOUT)"
        raise _http.ReadTimeout(message, request=request) from exc


class HttpxClient(openai.DefaultAsyncHttpxClient):
    """openai's httpx client, each call within a total deadline (module docstring)."""

    def __init__(self, *args, deadline_s: float | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.deadline_s = deadline_s

    async def send(self, request, **kwargs):
        # (for a reply that is not streamed, `send` reads the whole body before it returns)
        parent = super().send
        return await within_deadline(self.deadline_s, request, lambda: parent(request, **kwargs))


class AioHttpClient(openai.DefaultAioHttpClient):
    """openai's aiohttp client, with a dropped connection raised as a connection error, each
    call within a total deadline (module docstring)."""

    def __init__(self, *args, deadline_s: float | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.deadline_s = deadline_s

    async def send(self, request, **kwargs):
        parent = super().send
        return await within_deadline(
            self.deadline_s, request, lambda: self._send_once(parent, request, **kwargs)
        )

    @staticmethod
    async def _send_once(parent, request, **kwargs):
        try:
            return await parent(request, **kwargs)
        except _http.ConnectTimeout as exc:
            # The adapter maps every aiohttp connection error (server disconnected, reset)
            # to ConnectTimeout; only a real timeout stays one.
            if exc.__cause__ is None or isinstance(exc.__cause__, TimeoutError):
                raise
            cause = exc.__cause__
            message = f"{type(cause).__name__}: {cause}"
            raise _http.RemoteProtocolError(message, request=request) from cause


def origin(url) -> str:
    """`scheme://host:port` of a URL (str or the HTTP library's URL), default port spelt out."""
    if isinstance(url, str):
        url = _http.URL(url)
    port = url.port or _DEFAULT_PORTS.get(url.scheme)
    return f"{url.scheme}://{url.host}:{port}"


def keep_to_origin(http_client, base_url) -> None:
    """Make `http_client` refuse any request off `base_url`'s origin (i.e. a redirect there).

    The check runs on every request the client sends, the redirects it follows included,
    before the request leaves: a redirect within the origin is followed as usual.
    """
    allowed = origin(base_url)

    async def refuse_other_origins(request) -> None:
        if origin(request.url) != allowed:
            raise OffOriginRedirect(allowed, origin(request.url))

    http_client.event_hooks["request"].append(refuse_other_origins)


def http_clients(
    transport: str, concurrency: int, deadline_s: float | None = None
) -> tuple[list, int]:
    """The HTTP clients for a run, and how many concurrency slots share each one.

    Args:
        transport: `aiohttp` (one client; aiohttp's pool holds every connection) or `httpx`
            (several small clients: httpcore's pool scans every connection on each request
            and release, so eight pools of 8 beat one of 64).
        concurrency: requests in flight at once.
        deadline_s: the total time one call may take, first byte sent to last byte read.
    """
    if transport == "httpx":
        tls = ssl.create_default_context()  # CA certificates loaded once, not per client
        n_clients = -(-concurrency // _CONNECTIONS_PER_CLIENT)
        clients = [
            HttpxClient(verify=tls, limits=_LIMITS, deadline_s=deadline_s) for _ in range(n_clients)
        ]
        return clients, _CONNECTIONS_PER_CLIENT
    client = AioHttpClient(limits=_LIMITS, deadline_s=deadline_s, verify=_default_tls())
    return [client], concurrency


@lru_cache(maxsize=1)
def _default_tls() -> ssl.SSLContext:
    """The HTTP library's default certificate check (what `verify=True` builds), built once
    per process: building it loads the CA certificates, 30-40 ms of CPU, which every gateway
    paid again (one per work unit of a scaled-out or local judge run)."""
    return _http.create_ssl_context()
