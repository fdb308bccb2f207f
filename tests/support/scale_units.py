"""Work-unit functions for the executor tests (module-level, so Ray workers import them)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def square(payload: dict) -> int:
    """n squared; raises for a negative n (a unit failure with a reason)."""
    if payload["n"] < 0:
        raise ValueError(f"negative input {payload['n']}")
    time.sleep(payload.get("sleep", 0))
    return payload["n"] ** 2


def die_once(payload: dict) -> int:
    """Kills its own worker process the first time it sees unit `kill` (a marker file in
    `dir` remembers), as an OOM kill or a lost node would; otherwise `square`."""
    marker = Path(payload["dir"]) / f"died-{payload['n']}"
    if payload["n"] == payload["kill"] and not marker.exists():
        marker.touch()
        os._exit(1)
    return square(payload)


def worker_pid(_payload) -> int:
    """The process id of the worker that ran the unit."""
    return os.getpid()


def worker_niceness(_payload) -> int:
    """The scheduling niceness of the worker that ran the unit."""
    return os.nice(0)
