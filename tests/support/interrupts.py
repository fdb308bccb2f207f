"""A real SIGINT during a DuckDB statement."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

from tests.support.paths import REPO_ROOT

# Long enough for the signal to land inside it, whatever the machine's load.
LONG_QUERY = "SELECT sum(range % 7) FROM range(1000000000000)"


def default_sigint() -> None:
    """The child starts with Ctrl-C's default action and SIGINT unblocked, as under a terminal.
    Both are inherited: a suite started in the background by a non-interactive shell has SIGINT
    ignored (Python then installs no KeyboardInterrupt handler), and a test worker's signal mask
    passes to its children. Either way the child would run on after the signal and the test
    would fail for how it was launched, not for the code under test (seen once: four failures in
    one pytest worker of a background run, the child querying on for 90 s)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def send_interrupt(script: str, delay_s: float) -> tuple[int, str]:
    """Run `script` in a child, SIGINT it once, `delay_s` after it prints `inside`; (exit code,
    stderr). One signal only: a Ctrl-C that DuckDB ignores is the bug these tests catch."""
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        for line in child.stdout:
            if line.strip() == "inside":
                break
        time.sleep(delay_s)
        child.send_signal(signal.SIGINT)
        try:
            _, stderr = child.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            raise AssertionError("the child ran on for 90 s after one SIGINT") from None
        return child.returncode, stderr
    finally:
        if child.poll() is None:  # never leave a child running an endless query behind
            child.kill()
            child.communicate()
