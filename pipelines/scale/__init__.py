"""Scale-out: an executor seam (local or Ray) and the batch loop that keeps the driver the
store's single writer (docs/SCALE.md)."""

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
from pipelines.scale.runner import BatchProgress, BatchResult, Unfinished, batch_key, run_batch

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
