"""Paired comparison of two settings under one judge.

Both settings answered the same questions, so the comparison is paired: per question, the
difference of the Eq. 1 F1 (LF-VideoQA §3.3; several answers of a setting to one question are
averaged, as in `pipelines.metrics`) on the questions *both* answered and fully judged. Reported:

- the mean difference (b − a) with a paired bootstrap 95% percentile interval (questions are
  resampled with their pair intact; the vectorised `pipelines.metrics.bootstrap` draws);
- a two-sided sign test on wins vs losses, ties dropped (scipy's exact `binomtest`);
- a two-sided paired permutation p-value (random sign flips of the differences; exact over all
  2^n flips when n ≤ 16, else Monte Carlo with the +1 correction), in scipy's two-sided
  convention 2·min(P(T ≤ t), P(T ≥ t)) — written here, vectorised, and checked against
  `scipy.stats.permutation_test` in the tests;
- win / tie / loss counts (|difference| ≤ 1e-9 is a tie), and the largest differences.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from pipelines.metrics.bootstrap import bootstrap_means, percentile_interval
from pipelines.metrics.eq1 import per_question_scores

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
EXACT_MAX_N = 16
TIE = 1e-9


@dataclass
class PairedResult:
    """Paired statistics of one group (all questions, or one question type)."""

    group: str
    n: int
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None
    ci_low: float | None
    ci_high: float | None
    wins: int
    ties: int
    losses: int
    sign_p: float | None
    permutation_p: float | None
    permutation_exact: bool


@dataclass
class Comparison:
    """The comparison of settings a and b under one judge: overall, per group, and per question."""

    judge: str
    setting_a: str
    setting_b: str
    metric: str
    resamples: int
    seed: int
    results: list[PairedResult]
    pairs: pd.DataFrame = field(repr=False)

    def top_differences(self, k: int = 10) -> pd.DataFrame:
        """The k questions with the largest |b − a|."""
        order = self.pairs["diff"].abs().sort_values(ascending=False).index
        return self.pairs.loc[order].head(k).reset_index(drop=True)

    def as_json(self, k: int = 10) -> dict:
        """JSON-ready dict (`storyscope compare --json`)."""
        top = self.top_differences(k)
        return {
            "judge": self.judge,
            "a": self.setting_a,
            "b": self.setting_b,
            "metric": self.metric,
            "difference": "b - a",
            "resamples": self.resamples,
            "seed": self.seed,
            "results": [asdict(r) for r in self.results],
            "top_differences": top.to_dict(orient="records"),
        }


def paired_scores(counts: pd.DataFrame, a: str, b: str, metric: str = "f1") -> pd.DataFrame:
    """Per question both settings answered (and scored): question_id, qtype, a, b, diff (b − a).

    Args:
        counts: verdict counts in the `verdicts_view.answer_counts` layout.
    """
    per_question, _ = per_question_scores(counts[counts["setting_id"].isin([a, b])])
    wide = per_question.pivot_table(
        index=["question_id", "qtype"], columns="setting_id", values=metric, aggfunc="mean"
    )
    if a not in wide or b not in wide:
        return pd.DataFrame(columns=["question_id", "qtype", "a", "b", "diff"])
    both = wide[[a, b]].dropna().reset_index()
    both.columns = ["question_id", "qtype", "a", "b"]
    both["diff"] = both["b"] - both["a"]
    return both.sort_values("question_id").reset_index(drop=True)


@dataclass(frozen=True)
class JudgedSettings:
    """The settings a judge scored some question of, and the pair of them that scored the most
    questions in common (None with fewer than two settings): what a comparison can pair."""

    settings: list[str]
    pair: tuple[str, str] | None


def judged_settings(counts: pd.DataFrame, metric: str = "f1") -> JudgedSettings:
    """The settings with a scored question in `counts` (the `answer_counts` layout) and the pair
    with the most questions both scored (`paired_scores`' pairing); ties go to the first pair in
    setting order."""
    per_question, _ = per_question_scores(counts)
    scored = per_question.dropna(subset=[metric])
    if scored.empty:
        return JudgedSettings([], None)
    incidence = pd.crosstab(scored["question_id"], scored["setting_id"]).clip(upper=1)
    settings = [str(s) for s in incidence.columns]
    if len(settings) < 2:
        return JudgedSettings(settings, None)
    present = incidence.to_numpy(float)
    shared = present.T @ present  # questions both settings scored, per pair
    np.fill_diagonal(shared, -1)
    first, second = np.unravel_index(int(np.argmax(shared)), shared.shape)
    return JudgedSettings(settings, (settings[min(first, second)], settings[max(first, second)]))


def bootstrap_interval(
    diffs: np.ndarray, resamples: int, rng: np.random.Generator, level: float = 0.95
) -> tuple[float, float]:
    """Paired bootstrap percentile interval of the mean difference (questions resampled)."""
    means = bootstrap_means(np.asarray(diffs, float)[:, None], resamples, rng)
    low, high = percentile_interval(means, level)
    return float(low[0]), float(high[0])


def sign_test(diffs: np.ndarray) -> tuple[int, int, int, float | None]:
    """(wins, ties, losses, two-sided exact sign-test p); ties are left out of the test."""
    from scipy.stats import binomtest  # imported when used: scipy.stats takes seconds to import

    diffs = np.asarray(diffs, float)
    wins = int((diffs > TIE).sum())
    losses = int((diffs < -TIE).sum())
    ties = len(diffs) - wins - losses
    p = binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else None
    return wins, ties, losses, None if p is None else float(p)


def _flip_signs(n: int, resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    if n <= EXACT_MAX_N:
        codes = np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)
        return 1.0 - 2.0 * (codes & 1), True
    return rng.choice([-1.0, 1.0], size=(resamples, n)), False


def permutation_p(
    diffs: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[float | None, bool]:
    """Two-sided paired permutation p-value of the mean difference; returns (p, exact)."""
    diffs = np.asarray(diffs, float)
    if len(diffs) == 0:
        return None, False
    observed = diffs.mean()
    signs, exact = _flip_signs(len(diffs), resamples, rng)
    null = signs @ diffs / len(diffs)
    slack = 1e-12 * max(1.0, abs(observed))  # float noise must not break ties with `observed`
    adjust = 0 if exact else 1
    less = ((null <= observed + slack).sum() + adjust) / (len(null) + adjust)
    greater = ((null >= observed - slack).sum() + adjust) / (len(null) + adjust)
    return float(min(1.0, 2 * min(less, greater))), exact


def paired_result(
    group: str, pairs: pd.DataFrame, resamples: int, rng: np.random.Generator
) -> PairedResult:
    """Every paired statistic of one group of questions."""
    diffs = pairs["diff"].to_numpy(float)
    wins, ties, losses, sign_p = sign_test(diffs)
    if len(diffs) == 0:
        return PairedResult(group, 0, None, None, None, None, None, 0, 0, 0, None, None, False)
    low, high = bootstrap_interval(diffs, resamples, rng)
    perm_p, exact = permutation_p(diffs, resamples, rng)
    return PairedResult(
        group=group,
        n=len(diffs),
        mean_a=float(pairs["a"].mean()),
        mean_b=float(pairs["b"].mean()),
        mean_diff=float(diffs.mean()),
        ci_low=low,
        ci_high=high,
        wins=wins,
        ties=ties,
        losses=losses,
        sign_p=sign_p,
        permutation_p=perm_p,
        permutation_exact=exact,
    )


def compare_settings(
    counts: pd.DataFrame,
    judge: str,
    a: str,
    b: str,
    by_type: bool = False,
    metric: str = "f1",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Comparison:
    """Compare settings a and b on the questions both answered (see the module docstring).

    Args:
        counts: verdict counts of `judge` (`verdicts_view.answer_counts` layout).
        by_type: add one result per question type after the overall one.
    """
    if a == b:
        raise ValueError("compare: --a and --b name the same setting")
    rng = np.random.default_rng(seed)
    pairs = paired_scores(counts, a, b, metric)
    results = [paired_result("all", pairs, resamples, rng)]
    if by_type:
        for qtype, part in pairs.groupby("qtype", sort=True):
            results.append(paired_result(str(qtype), part, resamples, rng))
    return Comparison(judge, a, b, metric, resamples, seed, results, pairs)
