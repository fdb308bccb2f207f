"""The one way tests and benchmarks start the real app: `python -m ui.serve run app.py` (as
`make run` does) or plain `streamlit run app.py`, on a free loopback port over a given store, and
headless Debian Chromium to look at it.

Used by the browser tests, the load test and `benchmarks/bench_pages.py`, so that every one of
them starts the app exactly as a user does.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Options for every browser context a test opens: the visitor prefers reduced motion, so
# Streamlit draws its running indicator, skeletons and fades without CSS animations. What a
# page ends up showing is the same; the animations kept each waiting tab's renderer and
# Chromium's compositor drawing a frame every 16 ms (the 10-tab load test: Chromium's CPU
# 130 -> 92 core-s, its GPU process 32 -> 6).
CONTEXT_OPTIONS = {"reduced_motion": "reduce"}
# How the app is started: `make run`'s launcher (it warms the pages' imports), or the plain
# streamlit command a user may type.
LAUNCHERS = {"make-run": ["-m", "ui.serve", "run"], "streamlit": ["-m", "streamlit", "run"]}
# Keys a test may not want a served app to inherit from the developer's shell.
LLM_ENV = ("STORYSCOPE_LLM_BASE_URL", "STORYSCOPE_LLM_API_KEY", "OPENAI_API_KEY")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, process: subprocess.Popen, timeout: float = 90) -> None:
    """Until Streamlit's health endpoint answers; fails with the server's stderr if it died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = process.stderr.read().decode()[-2000:] if process.stderr else ""
            raise RuntimeError(f"streamlit exited early: {tail}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("streamlit did not become healthy")


def start_app(
    store_path: Path,
    env: Mapping[str, str] | None = None,
    drop_env: tuple[str, ...] = (),
    stderr=subprocess.PIPE,
    launcher: str = "make-run",
) -> tuple[subprocess.Popen, str]:
    """Starts the app over `store_path` and waits until it is healthy; returns (process, URL).

    `env` adds variables to the inherited environment, `drop_env` removes some; `stderr` is
    where the server's log goes (a pipe, so an early death can be reported, or an open file);
    `launcher` is a `LAUNCHERS` key."""
    port = free_port()
    full_env = {**os.environ, "STORYSCOPE_STORE": str(store_path), **(env or {})}
    for name in drop_env:
        full_env.pop(name, None)
    command = [sys.executable, *LAUNCHERS[launcher], "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    command += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    process = subprocess.Popen(
        command, cwd=REPO_ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=stderr
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
    except BaseException:
        stop_app(process)
        raise
    return process, url


def stop_app(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


@contextmanager
def running_app(
    store_path: Path,
    env: Mapping[str, str] | None = None,
    drop_env: tuple[str, ...] = (),
    stderr=subprocess.PIPE,
    launcher: str = "make-run",
) -> Iterator[str]:
    """`start_app` as a context: yields the base URL and stops the server on exit."""
    process, url = start_app(
        store_path, env=env, drop_env=drop_env, stderr=stderr, launcher=launcher
    )
    try:
        yield url
    finally:
        stop_app(process)


def launch_chromium(playwright):
    """Headless Debian Chromium through Playwright (never a downloaded browser build)."""
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
