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


def sleep_then_pid(payload: dict) -> int:
    """Sleeps `payload["sleep"]` seconds; the process id of the worker that ran the unit."""
    time.sleep(payload["sleep"])
    return os.getpid()


def minilm_loads(_payload) -> tuple[int, int]:
    """(worker pid, times this process has loaded MiniLM) after embedding one sentence."""
    from pipelines.embeddings import _load_sentence_model, embed_texts

    embed_texts(["a unit's sentence"])
    return os.getpid(), _load_sentence_model.cache_info().misses


def worker_restarted(_payload) -> tuple[int, bool]:
    """(worker pid, whether Ray restarted the actor running the unit)."""
    import ray

    return os.getpid(), ray.get_runtime_context().was_current_actor_reconstructed
