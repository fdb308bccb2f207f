"""`pipelines.scale.budget.batch_budget`: the one block the scaled-out LLM pipelines (beliefs,
summaries, question generation, judge) hold their batch's shared budget in; the Ray actor is
ended however the block is left."""

from __future__ import annotations

import pytest

from pipelines.llm.config import LLMConfig
from pipelines.scale import LocalExecutor
from pipelines.scale.budget import SharedBudget, batch_budget, budget_state
from tests.support.ray_session import assert_actor_ends

CONFIG = LLMConfig(base_url="http://127.0.0.1:9", model="m", budget_tokens=100)


def test_no_limit_or_no_config_gives_no_budget():
    for config in (None, LLMConfig(base_url="http://127.0.0.1:9", model="m")):
        with batch_budget(LocalExecutor(), config) as budget:
            assert budget is None and budget_state(budget) is None


def test_a_local_budget_is_seeded_with_what_the_run_spent():
    with batch_budget(LocalExecutor(), CONFIG, 0.5, 60) as budget:
        assert isinstance(budget, SharedBudget) and budget.left()
        budget.charge(40, 0.0)
        assert not budget.left()
    assert budget_state(budget) == {
        "budget_usd": None,
        "budget_tokens": 100,
        "spent_usd": 0.5,
        "spent_tokens": 100,
        "refused": 1,
    }


@pytest.mark.slow
def test_a_ray_budget_actor_ends_when_the_block_raises(ray_session):
    ray = pytest.importorskip("ray")
    from pipelines.scale import RayExecutor

    executor = RayExecutor(workers=1)
    try:
        with (
            pytest.raises(RuntimeError, match="batch broke"),
            batch_budget(executor, CONFIG) as budget,
        ):
            assert budget_state(budget)["budget_tokens"] == 100
            raise RuntimeError("batch broke")
        assert_actor_ends(ray, budget, "state")
    finally:
        executor.close()
