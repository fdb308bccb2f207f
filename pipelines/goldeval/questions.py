"""Generated questions scored against what the gold questions achieve.

The three figures are the Question Lab's, computed on one set of questions: the share passing
the automatic checks (pipelines/qgen/checks.py, each question with its own gold answer), the
share in at least one near-duplicate pair (MiniLM cosine ≥ NEAR_DUPLICATE_COSINE), and
Self-BLEU-2 in percent over all the questions (StoryMindv2 Table 2's diversity measure; lower is
more varied). The gold questions of the film, scored the same way, are the reference.
"""

from __future__ import annotations

import pandas as pd

from pipelines.qgen.analytics import near_duplicate_pairs, self_bleu
from pipelines.qgen.checks import CheckContext, check_question


def score_questions(questions: pd.DataFrame, embed, passed: list[bool] | None = None) -> dict:
    """checks_pass_rate, near_duplicate_rate, self_bleu2 of one question set; `passed` gives
    each question's check outcome when the caller checked them with more context than the
    gold answer alone."""
    if questions.empty:
        return {"checks_pass_rate": None, "near_duplicate_rate": None, "self_bleu2": None, "n": 0}
    texts = questions["text"].tolist()
    golds = [g if isinstance(g, str) and g else None for g in questions["gold"]]
    if passed is None:
        passed = [check_question(t, CheckContext(gold=g)).passed for t, g in zip(texts, golds)]
    ids = questions["question_id"].tolist()
    pairs = near_duplicate_pairs(ids, embed(texts))
    in_pairs = {p["question_a"] for p in pairs} | {p["question_b"] for p in pairs}
    return {
        "checks_pass_rate": round(sum(passed) / len(passed), 4),
        "near_duplicate_rate": round(len(in_pairs) / len(ids), 4),
        "self_bleu2": self_bleu(texts, 2),
        "n": len(ids),
    }
