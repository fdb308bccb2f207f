"""Demo step 50: StoryVideoQA analytics for the MCQs in the store (§3.3-3.4, Table 1).

Topic balance and reviewer voting are computed on the fly from mcq_questions (cheap); the
difficulty (BERTScore on MiniLM for every question) is computed once for the golden set and
stored as a `mcq.difficulty` run. Without imported MCQs (no --data-dir) the step does nothing.
"""

from __future__ import annotations

from pathlib import Path

from data_access.store import Store
from data_access.tables.mcq import current_difficulty, mcq_questions

SET_NAME = "golden"


def run(store: Store, data_dir: Path | None, echo) -> None:
    """Print topic/reviewer figures and store difficulty for the golden MCQs when present."""
    frame = mcq_questions(store, set_name=SET_NAME)
    if frame.empty:
        echo("  no golden MCQs in the store; skipped")
        return
    from pipelines.mcq.reviewers import reviewer_stats
    from pipelines.mcq.topics import topic_stats

    overall = topic_stats(frame)["sets"][-1]
    echo(
        f"  topics: n={overall['n']} gini {overall['gini']:.3f} entropy {overall['entropy']:.3f}"
        f" topics>5% {overall['topics_over_5pct']} (paper, full set: 0.927 / 3.795 / 14)"
    )
    voting = reviewer_stats(frame)["sets"][-1]
    echo(
        f"  reviewers: unanimous-correct {voting['unanimous_correct']:.4f}, majority answer "
        f"{voting['majority_answer']:.4f}, kept {voting['kept']:.4f}"
    )
    if len(current_difficulty(store, SET_NAME)) >= len(frame):
        echo("  difficulty: already stored, skipped")
        return
    from pipelines.mcq.difficulty_run import run_difficulty

    summary = run_difficulty(store, SET_NAME, echo=lambda m: echo(f"  {m}"))
    mean = summary["mean"]
    echo(
        f"  difficulty (BERTScore on all-MiniLM-L6-v2): D_q {mean['d_q']}, D_a {mean['d_a']},"
        f" D_qa {mean['d_qa']}, D {mean['d']}"
    )
