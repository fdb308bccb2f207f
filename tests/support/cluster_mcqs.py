"""The MCQ records the cluster test runs."""

from __future__ import annotations


def cluster_mcq_records() -> list[dict]:
    """Three Big Bang videos' MCQs (one difficulty unit per video)."""
    from tests.support.mcq_records import make_mcq

    return [
        make_mcq(
            "BigBang",
            f"BigBang-S02E0{v}",
            q,
            question=f"What does Sheldon leave at the laundry in scene {q} of episode {v}?",
            choices=[f"A note about laundry rule {q + k} from episode {v}" for k in range(5)],
            times=[f"00:0{q % 5}:05-00:0{q % 5}:{15 + q}"],
            characters=["Sheldon"] * (1 + q % 2),
            locations=["Laundry room"],
        )
        for v in (1, 2, 3)
        for q in range(5)
    ]
