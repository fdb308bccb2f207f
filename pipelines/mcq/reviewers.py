"""Reviewer voting over the three recorded checks (StoryVideoQA §3.3, Figure 8, Tables 3-4).

Each released question carries `gemini_check`, `claude_check` and `gpt_check`, each
`[correctness, selected answer]`, e.g. `["True", "Just some guy from work."]`.

- Correctness judgement (§3.3, following StoryMind): kept only if all three say 'True'.
- Majority answer voting (§3.3, new in StoryMindv2): among the answers the three reviewers
  selected, at least two (a majority of three) equal the generator's ground truth.
- StoryMind's strict consistency (Table 3, left column): all three answers equal the GT.

StoryMindv2 keeps a QA when it passes correctness AND majority voting. Answers are compared
after trimming, lower-casing and dropping a trailing full stop; an answer given as the option
letter (A-E) is mapped to that choice. Pairwise agreement between reviewers is reported as raw
agreement on the selected answer and Cohen's kappa on "selected the GT", plus Fleiss' kappa of
the three on "selected the GT", all through the judge issue's agreement code
(`pipelines.agreement.stats`). On the golden set the GT-hit labels are very skewed (every
question has a GT majority), so kappa sits near 0 even at 84-94 % raw agreement; read them
together.
"""

from __future__ import annotations

import json
import warnings
from itertools import combinations

import pandas as pd

from pipelines.agreement.stats import category_counts, cohen_kappa, fleiss_kappa, raw_agreement

REVIEWERS = ("gemini", "claude", "gpt")
LETTERS = "ABCDE"


def parse_check(raw) -> tuple[bool | None, str | None]:
    """(judged correct, selected answer) from a check as stored (JSON text or list)."""
    if raw is None or (isinstance(raw, float) and pd.isna(raw)):
        return None, None
    value = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(value, list | tuple) or not value:
        return None, None
    verdict = str(value[0]).strip().lower()
    correct = True if verdict == "true" else False if verdict == "false" else None
    answer = str(value[1]) if len(value) > 1 and value[1] is not None else None
    return correct, answer


def normalise_answer(answer: str | None, choices: list[str]) -> str | None:
    """Comparable form of an answer; a bare option letter becomes its choice text."""
    if answer is None:
        return None
    text = answer.strip()
    if len(text) == 1 and text.upper() in LETTERS and LETTERS.index(text.upper()) < len(choices):
        text = choices[LETTERS.index(text.upper())]
    return text.strip().lower().rstrip(".").strip()


def review_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per question: each reviewer's verdict and whether it picked the GT, plus the votes."""
    out = pd.DataFrame({"mcq_id": frame["mcq_id"], "source": frame["source"]})
    gt = [normalise_answer(g, list(c)) for g, c in zip(frame["gt"], frame["choices"])]
    for name in REVIEWERS:
        parsed = [parse_check(raw) for raw in frame[f"{name}_check"]]
        answers = [normalise_answer(a, list(c)) for (_, a), c in zip(parsed, frame["choices"])]
        out[f"{name}_correct"] = [ok is True for ok, _ in parsed]
        out[f"{name}_answer"] = answers
        out[f"{name}_hits_gt"] = [a is not None and a == g for a, g in zip(answers, gt)]
    hits = out[[f"{n}_hits_gt" for n in REVIEWERS]].sum(axis=1)
    out["unanimous_correct"] = out[[f"{n}_correct" for n in REVIEWERS]].all(axis=1)
    out["majority_answer"] = hits >= 2
    out["strict_consistency"] = hits == 3
    out["kept"] = out["unanimous_correct"] & out["majority_answer"]
    return out


def _rate(series: pd.Series) -> float:
    return round(float(series.mean()), 4) if len(series) else 0.0


def _clean(value: float) -> float | None:
    return None if value != value else round(float(value), 4)  # NaN -> None (JSON)


def pairwise_agreement(table: pd.DataFrame) -> list[dict]:
    """Raw answer agreement and Cohen's kappa on 'picked the GT' for each reviewer pair."""
    pairs = []
    for a, b in combinations(REVIEWERS, 2):
        answered = table[f"{a}_answer"].notna() & table[f"{b}_answer"].notna()
        same = raw_agreement(
            table.loc[answered, f"{a}_answer"].tolist(), table.loc[answered, f"{b}_answer"].tolist()
        )
        with warnings.catch_warnings():  # one label only: kappa undefined -> NaN -> None
            warnings.simplefilter("ignore")
            kappa = cohen_kappa(table[f"{a}_hits_gt"].tolist(), table[f"{b}_hits_gt"].tolist())
        pairs.append(
            {"pair": f"{a}-{b}", "answer_agreement": _clean(same), "kappa_gt": _clean(kappa)}
        )
    return pairs


def fleiss_gt(table: pd.DataFrame) -> float | None:
    """Fleiss' kappa of the three reviewers on 'picked the GT'."""
    labels = table[[f"{n}_hits_gt" for n in REVIEWERS]].map(lambda hit: "gt" if hit else "other")
    return _clean(fleiss_kappa(category_counts(labels))) if len(labels) else None


def _summary(name: str, table: pd.DataFrame) -> dict:
    return {
        "set": name,
        "n": int(len(table)),
        "unanimous_correct": _rate(table["unanimous_correct"]),
        "majority_answer": _rate(table["majority_answer"]),
        "strict_consistency": _rate(table["strict_consistency"]),
        "kept": _rate(table["kept"]),
        "reviewer_gt_rate": {n: _rate(table[f"{n}_hits_gt"]) for n in REVIEWERS},
        "pairwise": pairwise_agreement(table),
        "fleiss_kappa_gt": fleiss_gt(table),
    }


def reviewer_stats(frame: pd.DataFrame) -> dict:
    """§3.3 voting figures per source and for all questions."""
    table = review_table(frame)
    sets = [_summary(str(src), part) for src, part in table.groupby("source", sort=True)]
    sets.append(_summary("all", table))
    return {"sets": sets}
