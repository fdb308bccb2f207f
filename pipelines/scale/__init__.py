"""Scale-out: an executor seam (local or Ray) and the batch loop that keeps the driver the
store's single writer (docs/SCALE.md).

The batch loop's names (`run_batch`, ...) are imported on first use (PEP 562): a Ray worker
imports this package to unpickle its actor class and its units, and should not pay for the
store's modules (pandas, DuckDB: 1-2 s of a fresh worker's start on a loaded machine), which
only the driver uses.
"""

from importlib import import_module

from pipelines.scale.executor import (
    EXECUTORS,
    Executor,
    LocalExecutor,
    RayExecutor,
    Unit,
    UnitOutcome,
    executor_name,
    make_executor,
)

_RUNNER_NAMES = {"BatchProgress", "BatchResult", "Unfinished", "batch_key", "run_batch"}

__all__ = [
    "EXECUTORS",
    "BatchProgress",
    "BatchResult",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "Unfinished",
    "Unit",
    "UnitOutcome",
    "batch_key",
    "executor_name",
    "make_executor",
    "run_batch",
]


def __getattr__(name: str):
    if name in _RUNNER_NAMES:
        return getattr(import_module("pipelines.scale.runner"), name)
    raise AttributeError(f"module 'pipelines.scale' has no attribute {name!r}")
