"""One LLM budget for a whole scaled-out batch, however many workers spend it.

A local gateway stops sending once its run has spent `budget_usd` or `budget_tokens`
(`Gateway._budget_left`). On an executor each worker has its own gateway, so each would see
only its own spending and N workers could spend N budgets. Instead the driver makes one
`SharedBudget` per batch and hands every unit a handle to it: an in-process object for the
local executor, a small Ray actor (no CPU reserved, so it never takes a worker's slot) for
Ray. A worker's gateway asks it before every call and charges it after
(`llm_worker.WorkerGateway`), so the run stops at the budget exactly as a local run does: no
new call once it is spent, the calls already in flight finish and are kept (up to
workers x concurrency calls over, where a local run goes up to concurrency over).

Units whose calls were refused come back "stopped by the budget"; the batch records them as
failed with that reason, so the same command with a larger budget resumes them.

A pipeline holds its batch's budget in a `with batch_budget(...)` block, so the Ray actor is
ended however the batch ends (finished, failed, interrupted).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager

BUDGET_REASON = "LLM budget spent"


class SharedBudget:
    """Spent tokens and dollars against the config's limits (None: no limit)."""

    def __init__(
        self,
        budget_usd: float | None,
        budget_tokens: int | None,
        spent_usd: float = 0.0,
        spent_tokens: int = 0,
    ) -> None:
        self.budget_usd, self.budget_tokens = budget_usd, budget_tokens
        self.spent_usd, self.spent_tokens = float(spent_usd), int(spent_tokens)
        self.refused = 0

    def left(self) -> bool:
        """True while another call may be sent; a refusal is counted."""
        spent = (self.budget_usd is not None and self.spent_usd >= self.budget_usd) or (
            self.budget_tokens is not None and self.spent_tokens >= self.budget_tokens
        )
        self.refused += spent
        return not spent

    def charge(self, tokens: int, cost_usd: float) -> None:
        """Add one finished call's usage."""
        self.spent_tokens += int(tokens)
        self.spent_usd += float(cost_usd)

    def state(self) -> dict:
        """Limits, spending and refused calls (the driver reports these)."""
        return {
            "budget_usd": self.budget_usd,
            "budget_tokens": self.budget_tokens,
            "spent_usd": self.spent_usd,
            "spent_tokens": self.spent_tokens,
            "refused": self.refused,
        }


def shared_budget(executor, config, spent_usd: float = 0.0, spent_tokens: int = 0):
    """A budget handle for units of `executor`, or None when `config` sets no limit.

    `spent_*` seed it with what the run already spent (a resumed judge run, as the local
    gateway seeds itself from the run's usage)."""
    if config.budget_usd is None and config.budget_tokens is None:
        return None
    args = (config.budget_usd, config.budget_tokens, spent_usd, spent_tokens)
    if executor.name != "ray":
        return SharedBudget(*args)
    import ray

    return ray.remote(num_cpus=0)(SharedBudget).remote(*args)


@contextmanager
def batch_budget(executor, config, spent_usd: float = 0.0, spent_tokens: int = 0) -> Iterator:
    """The batch's budget handle inside the block (`shared_budget`; None when `config` is None
    or sets no limit), released on leaving the block however it is left.

    Example:
        with batch_budget(executor, config) as budget:
            result = run_batch(...)  # units carry `budget` in their payloads
            result.budget = budget_state(budget)
    """
    handle = None if config is None else shared_budget(executor, config, spent_usd, spent_tokens)
    try:
        yield handle
    finally:
        release_budget(handle)


async def budget_left(handle) -> bool:
    """`handle.left()` for an in-process budget or a Ray actor handle alike."""
    return bool(await _call(handle, "left"))


async def charge_budget(handle, tokens: int, cost_usd: float) -> None:
    """`handle.charge(...)` for an in-process budget or a Ray actor handle alike."""
    await _call(handle, "charge", tokens, cost_usd)


def budget_state(handle) -> dict | None:
    """The budget's state, read on the driver (None for no budget)."""
    if handle is None:
        return None
    method = handle.state
    if hasattr(method, "remote"):
        import ray

        return ray.get(method.remote())
    return method()


def release_budget(handle) -> None:
    """End a Ray budget actor (no-op for an in-process budget)."""
    if handle is not None and hasattr(handle.state, "remote"):
        import ray

        ray.kill(handle)


async def _call(handle, name: str, *args):
    method = getattr(handle, name)
    value = method.remote(*args) if hasattr(method, "remote") else method(*args)
    return await value if inspect.isawaitable(value) else value
