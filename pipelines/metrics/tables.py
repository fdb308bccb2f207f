"""Result tables: Eq. 1 means with bootstrap intervals by setting (Table 3 layout) and by
setting × question type (Table 4 layout)."""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from data_access.queries.verdict_counts import (
    judges_with_answer_verdicts,
    lexical_means,
    verdict_counts,
)
from data_access.store import Store
from pipelines.metrics.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_means,
    percentile_interval,
)
from pipelines.metrics.eq1 import (
    DEFAULT_PRECISION_CONVENTION,
    METRICS,
    check_precision_convention,
    per_question_scores,
)

BY_CHOICES = ("setting", "setting,type")


@dataclass
class MetricsTable:
    """Rows (dicts in the `storyscope metrics --json` layout) and how they were made."""

    judge: str
    by: str
    rows: list[dict]
    incomplete_answers: int
    resamples: int
    seed: int
    precision_convention: str = DEFAULT_PRECISION_CONVENTION


def pick_judge(store: Store, judge: str | None) -> str:
    """The named judge, or the only judge with verdicts on model answers.

    Raises:
        ValueError: no such judge, none at all, or several and none named.
    """
    judges = judges_with_answer_verdicts(store)
    if judge is not None:
        if judge not in judges:
            raise ValueError(
                f"judge {judge!r} has no verdicts on answers; judges: {', '.join(judges) or 'none'}"
            )
        return judge
    if not judges:
        raise ValueError("no claim verdicts on answers yet: run `storyscope judge` first")
    if len(judges) > 1:
        raise ValueError(
            f"several judges have verdicts; choose one with --judge: {', '.join(judges)}"
        )
    return judges[0]


def interval_rows(
    per_question: pd.DataFrame, group_keys: list[str], resamples: int, seed: int = DEFAULT_SEED
) -> list[dict]:
    """Means and bootstrap CIs of every group, resampling questions within each pool.

    The pool is all questions (by setting) or the questions of one type (by setting × type).
    A setting's interval resamples the questions it answered in the pool, from a random stream
    seeded by `seed` and those questions alone (`question_stream`), so it is the same whichever
    other settings, films or views are shown beside it: the Verdicts page with its Settings
    filter and `storyscope metrics` give one interval. Settings that answered the same questions
    share their resamples (one matrix product, and paired draws, as the paper's table compares
    them).
    """
    with threadpool_limits(1):
        # Each pool's product is small (B × n × k); BLAS threads cost more to wake and spin
        # than they save, and on a shared machine they steal CPU from everyone else.
        return _interval_rows(per_question, group_keys, resamples, seed)


def question_stream(seed: int, question_ids) -> np.random.Generator:
    """The random stream of one set of questions: `seed` and a digest of their sorted ids (a
    stable digest: Python's own hash of a string changes with every process)."""
    digest = hashlib.blake2b("\x1f".join(question_ids).encode(), digest_size=8).digest()
    return np.random.default_rng([seed, int.from_bytes(digest, "big")])


def _same_questions(answered: np.ndarray) -> list[tuple[list[int], np.ndarray]]:
    """Settings grouped by the questions they answered: (setting indices, question mask)."""
    groups: dict[bytes, tuple[list[int], np.ndarray]] = {}
    for setting in range(answered.shape[1]):
        mask = answered[:, setting]
        groups.setdefault(mask.tobytes(), ([], mask))[0].append(setting)
    return list(groups.values())


def _interval_rows(
    per_question: pd.DataFrame, group_keys: list[str], resamples: int, seed: int
) -> list[dict]:
    rows = []
    per_question = per_question.assign(
        _s=pd.Categorical(per_question.setting_id.astype(object)),
    )
    pool_key = [k for k in group_keys if k != "setting_id"]
    pools = per_question.groupby(pool_key) if pool_key else [((), per_question)]
    for _, pool in pools:
        values, settings, questions = _wide(pool)  # questions × (metric, setting)
        # Questions answered: `responding` is never NaN where a setting answered (precision is
        # NaN for a question whose answers all declined, so it cannot count them).
        responding = METRICS.index("responding") * len(settings)
        answered = ~np.isnan(values[:, responding : responding + len(settings)])
        low = np.full(values.shape[1], np.nan)
        high = np.full(values.shape[1], np.nan)
        with warnings.catch_warnings():
            # A setting whose answers all declined has no precision at all (eq1.py): its
            # column is all NaN and its mean and interval are None, which is the point.
            warnings.simplefilter("ignore", RuntimeWarning)
            for members, mask in _same_questions(answered):
                # the questions in id order, so the draws do not depend on the pool's order
                rows_of = np.flatnonzero(mask)
                rows_of = rows_of[np.argsort(questions[rows_of], kind="stable")]
                columns = [m * len(settings) + s for m in range(len(METRICS)) for s in members]
                sample = values[np.ix_(rows_of, columns)]
                rng = question_stream(seed, questions[rows_of].tolist())
                low[columns], high[columns] = percentile_interval(
                    bootstrap_means(sample, resamples, rng)
                )
            means = np.nanmean(values, axis=0) if np.isnan(values).any() else values.mean(0)
        counts = answered.sum(0)
        qtype = pool.qtype.iloc[0] if pool_key else None
        for s_index, setting in enumerate(settings):
            row = {"setting": setting, "type": qtype, "n": int(counts[s_index])}
            for m_index, metric in enumerate(METRICS):
                column = m_index * len(settings) + s_index
                row[metric] = _num(means[column])
                row[f"{metric}_ci"] = [_num(low[column]), _num(high[column])]
            rows.append(row)
    return sorted(rows, key=lambda r: (r["setting"], r["type"] or ""))


def _wide(pool: pd.DataFrame) -> tuple[np.ndarray, list[str], np.ndarray]:
    """questions × (metric-major, setting) matrix of one pool, NaN where unanswered, with the
    settings and the question ids of its rows."""
    q_codes, question_ids = pd.factorize(pool.question_id.astype(str).to_numpy())
    present = pool._s.cat.remove_unused_categories()
    s_codes, settings = present.cat.codes.to_numpy(), list(present.cat.categories)
    n_q, n_s = q_codes.max() + 1, len(settings)
    wide = np.full((n_q, len(METRICS), n_s), np.nan)
    wide[q_codes, :, s_codes] = pool[list(METRICS)].to_numpy(float)
    return wide.reshape(n_q, len(METRICS) * n_s), settings, np.asarray(question_ids, dtype=object)


def _num(value: float) -> float | None:
    return None if np.isnan(value) else round(float(value), 6)


def metrics_table(
    store: Store,
    judge: str | None = None,
    by: str = "setting",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    precision_convention: str = DEFAULT_PRECISION_CONVENTION,
) -> MetricsTable:
    """Eq. 1 means with 95% bootstrap CIs per setting (or setting × type) for one judge.

    `precision_convention` says what P is for an answer asserting no claim (eq1.py)."""
    if by not in BY_CHOICES:
        raise ValueError(f"--by {by!r}: expected one of {', '.join(BY_CHOICES)}")
    check_precision_convention(precision_convention)
    judge_id = pick_judge(store, judge)
    per_question, incomplete = per_question_scores(
        verdict_counts(store, judge_id), precision_convention
    )
    keys = ["setting_id"] if by == "setting" else ["setting_id", "qtype"]
    rows = interval_rows(per_question, keys, resamples, seed) if len(per_question) else []
    return MetricsTable(judge_id, by, rows, incomplete, resamples, seed, precision_convention)


def lexical_table(store: Store, judge: str) -> pd.DataFrame:
    """Mean RL, ClmRL, Cov@.5, Hedge per setting (Table 3's lexical columns), if recorded."""
    scores = lexical_means(store, judge)
    if scores.empty:
        return scores
    counts = verdict_counts(store, judge)[["answer_id", "setting_id"]]
    merged = counts.merge(scores, on="answer_id")
    return merged.groupby("setting_id")[["rl", "clm_rl", "cov50", "hedge"]].mean()
