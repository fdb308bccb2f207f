"""Scoring the tracker's answers against a dataset's gold answers (`storyscope beliefs eval`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


def normalise_answer(text: str | None) -> str:
    """Compare answers without case, articles or surrounding punctuation."""
    if text is None:
        return ""
    words = text.strip().strip(".").lower().split()
    while words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


@dataclass
class Miss:
    """One wrong answer, kept so that every miss can be examined."""

    story_id: str
    question: str
    gold: str
    predicted: str | None
    group: str


@dataclass
class EvalResult:
    """Accuracy overall and by group (question order, condition, ...)."""

    dataset: str
    n: int = 0
    correct: int = 0
    groups: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    extra_groups: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    misses: list[Miss] = field(default_factory=list)
    notes: dict = field(default_factory=dict)

    def add(
        self, ok: bool, group: str, miss: Miss | None = None, also: dict[str, str] | None = None
    ) -> None:
        """Record one scored item in its group (and in any extra breakdowns)."""
        self.n += 1
        self.correct += int(ok)
        self.groups[group][0] += int(ok)
        self.groups[group][1] += 1
        for name, value in (also or {}).items():
            bucket = self.extra_groups.setdefault(name, defaultdict(lambda: [0, 0]))
            bucket[value][0] += int(ok)
            bucket[value][1] += 1
        if not ok and miss is not None:
            self.misses.append(miss)

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    def by_order(self) -> dict[str, float]:
        """Accuracy per group, groups sorted."""
        return {k: round(c / t, 4) for k, (c, t) in sorted(self.groups.items()) if t}

    def as_json(self) -> dict:
        """The `--json` payload: {"n", "accuracy", "by_order"} plus breakdowns and misses."""
        payload = {"n": self.n, "accuracy": round(self.accuracy, 4), "by_order": self.by_order()}
        for name, bucket in self.extra_groups.items():
            payload[f"by_{name}"] = {k: round(c / t, 4) for k, (c, t) in sorted(bucket.items())}
        payload["dataset"] = self.dataset
        payload["n_misses"] = len(self.misses)
        payload.update(self.notes)
        return payload
