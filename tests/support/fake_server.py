"""A scripted, local OpenAI-compatible HTTP server for tests and benchmarks (no network needed).

It answers `POST /v1/chat/completions` (and `GET /v1/models`) on 127.0.0.1 on a free port. What
it replies is decided by a *handler*: a callable that receives the parsed request body and the
0-based request number and returns a `FakeReply` (or a plain string: the assistant's content).
Faults are injected through `FakeReply` fields: latency, an HTTP status with `Retry-After`,
a body that is not JSON at all, a reply cut short (`finish_reason="length"`), a stall longer
than the client's timeout, a refused key (401 / 403) or a redirect (`status=307,
location=other_server.base_url + "/chat/completions"`).

    with FakeLLMServer(lambda body, n: '{"label": "asserted"}') as server:
        config = LLMConfig(base_url=server.base_url, model="fake", api_key="test")

`Dialect(name, handler)` wraps a handler to answer like a real server with limited structured
output (llama-cpp-python's 500 on `json_schema`, a 400 on any `response_format`, ...).

The server runs on daemon threads inside the test process (`FakeLLMServer`), or in a child
process (`FakeLLMServer(..., in_subprocess=True)`, handler must be a picklable module-level
callable) so benchmark clients do not share the GIL with it. It stops on `stop()` / context
exit, and a server left running stops itself after `max_lifetime_s`.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeReply:
    """One scripted reply.

    Attributes:
        content: the assistant message text (used when status is 200).
        status: HTTP status; 429 and 5xx exercise the gateway's retries.
        retry_after: seconds sent in a `Retry-After` header (with 429/503).
        delay_s: latency injected before replying (a stall longer than the client timeout
            is a timeout).
        finish_reason: `stop`, or `length` for a reply truncated by the token limit.
        raw_body: when set, sent verbatim instead of a JSON completion (a malformed body).
        prompt_tokens / completion_tokens: usage reported; default: a chars/4 estimate.
        location: sent as a `Location` header (with a 30x status: a redirect).
        tool_calls: OpenAI tool calls of the assistant message, each `{"name": ...,
            "arguments": {...} or "<json text>"}` (ids and the function wrapper are added);
            the finish reason becomes `tool_calls`.
    """

    content: str = ""
    status: int = 200
    retry_after: float | None = None
    delay_s: float = 0.0
    finish_reason: str = "stop"
    raw_body: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    location: str | None = None
    tool_calls: list[dict] | None = None


Handler = Callable[[dict, int], "FakeReply | str"]


class Dialect:
    """A handler wrapper that answers like a real server whose structured output is limited.

    Picklable (module-level class), so it works with `in_subprocess=True` too. Dialects:

    - `llama_cpp_python`: llama-cpp-python's server (0.3.x): `response_format.type` must be
      `text` or `json_object` (an optional `schema` becomes a grammar); anything else is an
      HTTP 500 carrying the pydantic validation error.
    - `no_json_schema`: accepts `json_object` but answers 400 "response_format type
      json_schema is not supported" (older Ollama / LM Studio builds).
    - `no_response_format`: any `response_format` is a 400 (plain completion servers).
    - `no_tools`: a 400 "tools are not supported" for any request carrying `tools` (servers
      and chat templates without tool calling).
    - `openai`: accepts everything (the wrapped handler decides).
    """

    def __init__(self, name: str, handler: Handler) -> None:
        if name not in (
            "llama_cpp_python",
            "no_json_schema",
            "no_response_format",
            "no_tools",
            "openai",
        ):
            raise ValueError(f"unknown dialect {name!r}")
        self.name, self.handler = name, handler

    def __call__(self, body: dict, number: int) -> FakeReply | str:
        if self.name == "no_tools" and body.get("tools"):
            return FakeReply(status=400, content="Unsupported parameter: 'tools' is not supported")
        rejection = self.rejection(body.get("response_format"))
        return rejection if rejection is not None else self.handler(body, number)

    def rejection(self, fmt: dict | None) -> FakeReply | None:
        kind = (fmt or {}).get("type")
        if fmt is None or self.name == "openai":
            return None
        if self.name == "llama_cpp_python" and kind not in ("text", "json_object"):
            detail = (
                "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                "'msg': \"Input should be 'text' or 'json_object'\", "
                f"'input': '{kind}', 'ctx': {{'expected': \"'text' or 'json_object'\"}}}}]"
            )
            return FakeReply(status=500, content=detail)
        if self.name == "no_json_schema" and kind == "json_schema":
            return FakeReply(
                status=400, content="response_format type json_schema is not supported"
            )
        if self.name == "no_response_format":
            return FakeReply(status=400, content="Unsupported parameter: 'response_format'")
        return None


@dataclass
class ServerLog:
    """What the server saw: request bodies and the Authorization headers (for leak tests)."""

    bodies: list[dict] = field(default_factory=list)
    auth_headers: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, body: dict, auth: str) -> int:
        with self.lock:
            self.bodies.append(body)
            self.auth_headers.append(auth)
            return len(self.bodies) - 1


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def completion_body(reply: FakeReply, request: dict, number: int) -> dict:
    """The JSON of an OpenAI chat completion carrying `reply.content`."""
    prompt_text = json.dumps(request.get("messages", []))
    message: dict = {"role": "assistant", "content": reply.content}
    finish = reply.finish_reason
    if reply.tool_calls is not None:
        message["tool_calls"] = [
            _tool_call(call, number, i) for i, call in enumerate(reply.tool_calls)
        ]
        message["content"] = reply.content or None
        finish = "tool_calls" if finish == "stop" else finish
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens or _estimate_tokens(prompt_text),
            "completion_tokens": reply.completion_tokens or _estimate_tokens(reply.content),
            "total_tokens": (reply.prompt_tokens or _estimate_tokens(prompt_text))
            + (reply.completion_tokens or _estimate_tokens(reply.content)),
        },
    }


def _tool_call(call: dict, number: int, index: int) -> dict:
    arguments = call.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return {
        "id": call.get("id", f"call-{number}-{index}"),
        "type": "function",
        "function": {"name": call["name"], "arguments": arguments},
    }


def _make_request_handler(handler: Handler, log: ServerLog):
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the client reuses connections
        # Without TCP_NODELAY, Nagle + delayed ACK add ~40 ms to a keep-alive reply.
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:  # quiet: tests read ServerLog instead
            return

        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            self._send(200, json.dumps({"object": "list", "data": [{"id": "fake"}]}))

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                body = {}
            number = log.record(body, self.headers.get("Authorization", ""))
            reply = handler(body, number)
            if isinstance(reply, str):
                reply = FakeReply(content=reply)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            self._reply(reply, body, number)

        def _reply(self, reply: FakeReply, body: dict, number: int) -> None:
            headers = {}
            if reply.retry_after is not None:
                headers["Retry-After"] = f"{reply.retry_after:g}"
            if reply.location is not None:
                headers["Location"] = reply.location
            if reply.raw_body is not None:
                self._send(reply.status, reply.raw_body, headers)
            elif reply.status != 200:
                error = {
                    "error": {
                        "message": reply.content or f"scripted {reply.status}",
                        "type": "scripted",
                        "code": reply.status,
                    }
                }
                self._send(reply.status, json.dumps(error), headers)
            else:
                self._send(200, json.dumps(completion_body(reply, body, number)), headers)

        def _send(self, status: int, text: str, headers: dict | None = None) -> None:
            payload = text.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                # Headers and body in one write (one segment), not two.
                self._headers_buffer.append(b"\r\n" + payload)
                self.flush_headers()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to do

    return _Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address) -> None:  # client hung up mid-reply
        return


def _serve_in_child(handler: Handler, port_pipe, stop_event, max_lifetime_s: float) -> None:
    server = _QuietServer(("127.0.0.1", 0), _make_request_handler(handler, ServerLog()))
    port_pipe.send(server.server_address[1])
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    stop_event.wait(max_lifetime_s)
    server.shutdown()


class FakeLLMServer:
    """The scripted server; use as a context manager or call `start()` / `stop()`.

    Args:
        handler: decides each reply (see module docstring); a str handler result is content.
        in_subprocess: serve from a child process (benchmarks); `log` then stays empty.
        max_lifetime_s: the server stops itself after this long even if never stopped.
    """

    def __init__(
        self, handler: Handler, in_subprocess: bool = False, max_lifetime_s: float = 600.0
    ) -> None:
        self.handler = handler
        self.in_subprocess = in_subprocess
        self.max_lifetime_s = max_lifetime_s
        self.log = ServerLog()
        self.port: int | None = None
        self._server: _QuietServer | None = None
        self._process = None
        self._stop_event = None
        self._timer: threading.Timer | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (`http://127.0.0.1:PORT/v1`)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeLLMServer:
        """Bind a free loopback port and start serving."""
        if self.in_subprocess:
            self._start_child()
        else:
            self._server = _QuietServer(
                ("127.0.0.1", 0), _make_request_handler(self.handler, self.log)
            )
            self.port = self._server.server_address[1]
            threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            ).start()
            self._timer = threading.Timer(self.max_lifetime_s, self.stop)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _start_child(self) -> None:
        context = multiprocessing.get_context("fork")
        parent_end, child_end = context.Pipe()
        self._stop_event = context.Event()
        self._process = context.Process(
            target=_serve_in_child,
            args=(self.handler, child_end, self._stop_event, self.max_lifetime_s),
            daemon=True,
        )
        self._process.start()
        self.port = parent_end.recv()

    def stop(self) -> None:
        """Stop serving and release the port (safe to call twice)."""
        if self._timer is not None:
            self._timer.cancel()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._process is not None:
            self._stop_event.set()
            self._process.join(timeout=5)
            if self._process.is_alive():
                self._process.kill()
            self._process = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
