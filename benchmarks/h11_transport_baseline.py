"""BENCHMARK BASELINE ONLY, not used by StoryScope: the hand-written h11 transport that the
gateway ran on before it moved to `openai[aiohttp]`. Kept, unchanged, so
`bench_judge.py` can measure it side by side with httpx and aiohttp in one run
(`--transports httpx,h11,aiohttp`). Do not import it from the project.

The original docstring follows.

A lean HTTP/1.1 transport for the gateway's `openai` client.

The `openai` client stays the way StoryScope talks to endpoints; only the layer under its
HTTP client changes. The default transport (httpcore over anyio) spends most of a call's
client CPU in its connection pool, stream wrappers and per-event bookkeeping: on loopback it
costs ~10x a bare asyncio exchange (`benchmarks/bench_judge.py`). This transport keeps one
idle-connection stack per origin, frames HTTP/1.1 with `h11` (so chunked bodies, keep-alive
and protocol errors are handled by a well-kept library, not by hand) and reads each reply
whole: the gateway never streams.

Errors are raised as the HTTP library's own exceptions (`ConnectError`, `ReadTimeout`,
`RemoteProtocolError`, ...), so the `openai` client maps them to `APIConnectionError` /
`APITimeoutError` exactly as before, and the gateway's transient-retry rules still apply.
A keep-alive connection the server closed while idle is detected before reuse; a reused
connection that fails before any reply byte is retried once on a fresh one (the request was
never processed), as httpcore does.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import defaultdict

import h11
import openai

try:  # the HTTP library the installed openai client is built on
    import httpx2 as _http
except ImportError:  # openai 1.x
    import httpx as _http

_READ_CHUNK = 65536
_DEFAULT = _http.USE_CLIENT_DEFAULT
_Origin = tuple[str, str, int]


class _Connection:
    """One keep-alive socket and its h11 state machine."""

    __slots__ = ("reader", "writer", "h11")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)

    def reusable(self) -> bool:
        # EOF already seen means the server closed the idle connection.
        return not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        self.writer.close()


class LeanAsyncTransport(_http.AsyncBaseTransport):
    """HTTP/1.1 over asyncio streams with a per-origin keep-alive pool.

    Args:
        ssl_context: used for https origins; by default the system's CA certificates, loaded
            on the first https connection (loading them costs ~40 ms of CPU, which a run
            against a loopback or LAN server over http never needs).
        max_idle: idle connections kept per origin (size it to the call concurrency).
    """

    def __init__(self, ssl_context: ssl.SSLContext | None = None, max_idle: int = 64) -> None:
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle: dict[_Origin, list[_Connection]] = defaultdict(list)

    async def handle_async_request(self, request: _http.Request) -> _http.Response:
        origin = (request.url.scheme, request.url.host, request.url.port)
        body = await request.aread()  # already in memory for a JSON body
        timeout = _timeout_of(request)
        reused = self._take_idle(origin)
        if reused is not None:
            try:
                return await self._exchange(reused, origin, request, body, timeout)
            except _NothingReceived:
                pass  # the server dropped the idle connection: try once on a fresh one
        connection = await self._connect(origin, timeout)
        try:
            return await self._exchange(connection, origin, request, body, timeout)
        except _NothingReceived as exc:
            raise _http.RemoteProtocolError(
                "server closed the connection without a reply", request=request
            ) from exc.__cause__

    async def aclose(self) -> None:
        for stack in self._idle.values():
            for connection in stack:
                connection.close()
        self._idle.clear()

    # -- internals -------------------------------------------------------------------------
    def _take_idle(self, origin: _Origin) -> _Connection | None:
        stack = self._idle.get(origin)
        while stack:
            connection = stack.pop()
            if connection.reusable():
                return connection
            connection.close()
        return None

    async def _connect(self, origin: _Origin, timeout: float | None) -> _Connection:
        scheme, host, port = origin
        secure = scheme == "https"
        port = port or (443 if secure else 80)
        if secure and self._ssl is None:
            self._ssl = ssl.create_default_context()
        context = self._ssl if secure else None
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=context, server_hostname=host if secure else None
                )
        except TimeoutError as exc:
            raise _http.ConnectTimeout(f"connecting to {host}:{port} timed out") from exc
        except OSError as exc:
            raise _http.ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc
        return _Connection(reader, writer)

    async def _exchange(self, connection, origin, request, body: bytes, timeout):
        received = False
        try:
            async with asyncio.timeout(timeout):
                connection.writer.write(_request_bytes(connection.h11, request, body))
                await connection.writer.drain()
                status, headers, chunks = None, None, []
                while True:
                    event = connection.h11.next_event()
                    if event is h11.NEED_DATA:
                        data = await connection.reader.read(_READ_CHUNK)
                        if data:
                            received = True
                        connection.h11.receive_data(data)
                    elif isinstance(event, h11.Response):
                        status, headers = event.status_code, event.headers
                    elif isinstance(event, h11.Data):
                        chunks.append(event.data)
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                        # (never loop on an event that cannot lead to the reply's end)
                        raise h11.RemoteProtocolError("connection closed before the reply ended")
        except TimeoutError as exc:
            connection.close()
            raise _http.ReadTimeout("the server did not answer in time", request=request) from exc
        except (h11.RemoteProtocolError, OSError) as exc:
            connection.close()
            if not received:
                raise _NothingReceived from exc
            raise _http.RemoteProtocolError(str(exc), request=request) from exc
        except BaseException:  # cancelled mid-exchange: the socket's state is unknown
            connection.close()
            raise
        self._release(connection, origin)
        return _http.Response(status, headers=list(headers), content=b"".join(chunks))

    def _release(self, connection: _Connection, origin: _Origin) -> None:
        state = connection.h11
        if state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            stack = self._idle[origin]
            if len(stack) < self._max_idle:
                stack.append(connection)
                return
        connection.close()


class LeanAsyncClient(openai.DefaultAsyncHttpxClient):
    """The openai client's HTTP client, for plain JSON POSTs over a `LeanAsyncTransport`.

    The openai client builds every request through `build_request` and sends it with `send`.
    For the gateway's requests (a byte body, no query, no cookies, no auth flow, no hooks)
    both do work that changes nothing: merging the client's headers into a fresh copy,
    parsing the URL three times, auth and redirect generators. Here such a request is built
    and sent directly; anything else (and a redirect reply) goes the library's own way.
    """

    def build_request(self, method, url, *, content=None, headers=None, timeout=_DEFAULT, **kw):
        plain = isinstance(url, str) and url.startswith(("http://", "https://"))
        plain = plain and isinstance(content, bytes | None) and not (self.params or self.cookies)
        if not plain or any(value is not None for value in kw.values()):
            return super().build_request(
                method, url, content=content, headers=headers, timeout=timeout, **kw
            )
        merged = _http.Headers(headers)
        for name, value in self.headers.multi_items():  # the client defaults not set by the caller
            if name not in merged:
                merged[name] = value
        timeout = self.timeout if timeout is _DEFAULT else _http.Timeout(timeout)
        extensions = {"timeout": timeout.as_dict()}
        return _http.Request(method, url, content=content, headers=merged, extensions=extensions)

    async def send(self, request, *, stream=False, **kwargs):
        if stream or self.is_closed or kwargs.get("auth") not in (None, _DEFAULT) or self._hooks():
            return await super().send(request, stream=stream, **kwargs)
        transport = self._transport_for_url(request.url)
        response = await transport.handle_async_request(request)
        response.request = request
        if response.has_redirect_location:  # (rare for an API) followed as the library does
            return await self._redirected(request, response, stream, kwargs)
        if "set-cookie" in response.headers:
            self.cookies.extract_cookies(response)
        await response.aread()
        return response

    async def _redirected(self, request, response, stream, kwargs):
        follow = kwargs.get("follow_redirects", _DEFAULT)
        follow = self.follow_redirects if follow is _DEFAULT else follow
        next_request = self._build_redirect_request(request, response)
        if not follow:
            response.next_request = next_request
            await response.aread()
            return response
        await response.aclose()
        return await super().send(next_request, stream=stream, **kwargs)

    def _hooks(self) -> bool:
        hooks = self.event_hooks
        return bool(self.auth or hooks["request"] or hooks["response"])


class _NothingReceived(Exception):
    """The connection failed before any reply byte arrived (safe to send again)."""


def _timeout_of(request: _http.Request) -> float | None:
    # One deadline for the whole exchange: the largest of httpx's per-phase timeouts.
    phases = request.extensions.get("timeout") or {}
    values = [v for v in phases.values() if v is not None]
    return max(values) if values else None


def _request_bytes(state: h11.Connection, request: _http.Request, body: bytes) -> bytes:
    headers = list(request.headers.raw)
    if not any(name.lower() == b"host" for name, _ in headers):
        headers.insert(0, (b"Host", request.url.netloc))
    target = request.url.raw_path
    head = state.send(h11.Request(method=request.method, target=target, headers=headers))
    data = state.send(h11.Data(data=body)) if body else b""
    return head + data + state.send(h11.EndOfMessage())
