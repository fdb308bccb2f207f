"""The evidence trail per answer and per agent setting: the figures the Verdicts panel, the
`storyscope metrics` command and the `agent-trail` export share.

Per answer (`per_answer_trail`): the rows of
`data_access.queries.agent_trail_view.TRAIL_ANSWERS_SQL` with the measures of
`pipelines.metrics.trail` and, given a judge, the answer's Eq. 1 recall (LF-VideoQA §3.3)
from the verdict counts the metrics already read.

Per setting (`trail_setting_rows`), as the metrics tables: an answer is one (run, question) loop,
answered or not (a loop that hit its step limit still looked somewhere); several loops of one
setting on one question are averaged into that question; a measure's mean is over questions,
with a 95% bootstrap interval resampling questions (`pipelines.metrics.bootstrap`, the same
per-question random stream as the Eq. 1 tables). Outcome counts are of loops. The relation of
evidence touched to recall is Spearman's rank correlation over the setting's questions that have
both (an answered, fully judged answer and evidence scenes); None under three such questions or
when either side does not vary.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from data_access.queries import agent_trail_view
from data_access.queries.verdict_counts import verdict_counts
from data_access.store import Store
from pipelines.metrics.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_means,
    percentile_interval,
)
from pipelines.metrics.eq1 import per_answer_scores
from pipelines.metrics.tables import question_stream
from pipelines.metrics.trail import answer_measures, touched_scene_flags

# the per-question means shown per setting, with intervals
TRAIL_MEASURES = ("touched_share", "tiou", "turns", "tool_calls", "tokens")
OUTCOMES = ("answered", "step_limit", "failed")
MEASURE_COLUMNS = (
    "evidence_scenes",
    "touched_scenes",
    "touched_share",
    "tiou",
    "seconds_looked",
    "tokens",
)


def with_measures(trail: pd.DataFrame) -> pd.DataFrame:
    """`trail` (rows of TRAIL_ANSWERS_SQL) with the trail measures of each row added."""
    measures = [
        answer_measures(touched, spans, prompt, completion)
        for touched, spans, prompt, completion in zip(
            trail["touched"],
            trail["evidence_spans"],
            trail["prompt_tokens"],
            trail["completion_tokens"],
        )
    ]
    frame = pd.DataFrame(measures, columns=list(MEASURE_COLUMNS), index=trail.index)
    return pd.concat([trail, frame], axis=1)


def answer_recall(store: Store, judge_id: str) -> pd.DataFrame:
    """answer_id -> Eq. 1 recall under `judge_id` (fully judged answers only, as the metrics)."""
    return recall_of_answers(verdict_counts(store, judge_id))


def recall_of_answers(counts: pd.DataFrame) -> pd.DataFrame:
    """answer_id -> Eq. 1 recall from verdict counts (fully judged answers only)."""
    complete = counts[counts.n_judged >= counts.n_claims]
    if complete.empty:
        return pd.DataFrame({"answer_id": pd.Series(dtype=object), "recall": []})
    return per_answer_scores(complete)[["answer_id", "recall"]]


def in_slice(per_answer: pd.DataFrame, qtypes=(), settings=()) -> pd.DataFrame:
    """The loops of the question types and settings chosen (none chosen: all), as the Verdicts
    metrics' slice."""
    keep = pd.Series(True, index=per_answer.index)
    if qtypes:
        keep &= per_answer["qtype"].isin(list(qtypes))
    if settings:
        keep &= per_answer["setting_id"].isin(list(settings))
    return per_answer[keep]


def per_answer_trail(
    store: Store, judge_id: str | None = None, film_id: str | None = None
) -> pd.DataFrame:
    """Every agent loop (of one film, or all) with its trail measures, and its recall under
    `judge_id` (NaN: no judge given, no answer, or not fully judged)."""
    frame = with_measures(agent_trail_view.trail_answers(store, film_id))
    return with_recall(frame, answer_recall(store, judge_id) if judge_id else None)


def with_recall(per_answer: pd.DataFrame, recall: pd.DataFrame | None) -> pd.DataFrame:
    """`per_answer` with each loop's answer's recall (NaN: no answer, or not judged)."""
    if recall is None or recall.empty:
        return per_answer.assign(recall=np.nan)
    return per_answer.merge(recall, on="answer_id", how="left")


def trail_setting_rows(
    per_answer: pd.DataFrame, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[dict]:
    """One JSON-ready row per agent setting (module docstring), in setting order."""
    with threadpool_limits(1):  # small products: BLAS threads cost more than they save
        return [
            _setting_row(rows, resamples, seed)
            for _, rows in per_answer.groupby("setting_id", sort=True)
        ]


def _setting_row(rows: pd.DataFrame, resamples: int, seed: int) -> dict:
    per_question = (
        rows.assign(tokens=rows["tokens"].astype(float))
        .groupby("question_id", sort=True)[[*TRAIL_MEASURES, "recall"]]
        .mean()
    )
    values = per_question[list(TRAIL_MEASURES)].to_numpy(float)
    rng = question_stream(seed, per_question.index.astype(str).tolist())
    with warnings.catch_warnings():
        # a measure no question has (tokens a harness did not count) is all NaN: None, the point
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = percentile_interval(bootstrap_means(values, resamples, rng))
        means = np.nanmean(values, axis=0)
    first = rows.iloc[0]
    row = {
        "setting": first["setting_id"],
        "label": first["setting_label"],
        "tier": first["tier"],
        "n": int(len(per_question)),
        "loops": int(len(rows)),
        **{outcome: int((rows["outcome"] == outcome).sum()) for outcome in OUTCOMES},
        "bad_calls": int(rows["bad_calls"].sum()),
        "run_ids": ",".join(sorted(rows["run_id"].astype(str).unique())),
    }
    for index, measure in enumerate(TRAIL_MEASURES):
        row[measure] = _num(means[index])
        row[f"{measure}_ci"] = [_num(low[index]), _num(high[index])]
    row["recall_n"], row["touched_recall_rho"] = _touched_recall(per_question)
    return row


def _touched_recall(per_question: pd.DataFrame) -> tuple[int, float | None]:
    """(questions with both measures, Spearman's rho of touched share against recall)."""
    both = per_question[["touched_share", "recall"]].dropna()
    if len(both) < 3 or both["touched_share"].nunique() < 2 or both["recall"].nunique() < 2:
        return len(both), None
    from scipy import stats  # here: scipy takes seconds to import, and pages import this module

    rho = stats.spearmanr(both["touched_share"], both["recall"]).statistic
    return len(both), _num(float(rho))


def _num(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 6)


def settings_frame(trail: pd.DataFrame) -> pd.DataFrame:
    """Per-setting rows (no recall: that needs a judge, `storyscope metrics`) from the rows of
    TRAIL_ANSWERS_SQL: the `agent-trail-settings` export."""
    return pd.DataFrame(trail_setting_rows(with_measures(trail).assign(recall=np.nan)))


def trail_table(
    store: Store,
    judge_id: str | None = None,
    film_id: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[dict]:
    """The per-setting trail rows of every agent setting with a recorded trail (none: [])."""
    per_answer = per_answer_trail(store, judge_id, film_id)
    return trail_setting_rows(per_answer, resamples, seed) if len(per_answer) else []


# What a claim's verdict and its evidence scenes' trail say together (the Verdicts panel):
# a missed claim whose scenes the agent never touched was never looked for; one whose scene it
# touched was seen and still not stated.
READINGS = {
    "asserted": "stated",
    "contradicted": "contradicted",
    "never looked": "missed: its evidence scenes were never touched",
    "seen": "missed: an evidence scene was touched, the claim not stated",
    "no evidence": "missed: no evidence scene recorded for this claim",
    "not judged": "not judged",
}


def evidence_touched(evidence: pd.DataFrame, touched) -> pd.DataFrame:
    """The question's evidence scenes (`agent_trail.evidence_scenes`) with a `touched` column
    for one loop's touched intervals (the rule of `pipelines.metrics.trail`)."""
    spans = list(zip(evidence["start_s"], evidence["end_s"]))
    return evidence.assign(touched=touched_scene_flags(touched, spans) if spans else [])


def loop_intervals(calls: pd.DataFrame) -> list[list[float]]:
    """Every interval one loop's calls touched, in call order."""
    return [list(span) for spans in calls["intervals"] if spans is not None for span in spans]


def claims_against_trail(claims: pd.DataFrame, evidence: pd.DataFrame) -> pd.DataFrame:
    """Each rubric claim of one answer (ord, role, claim, verdict) with its evidence scenes, the
    ones the loop touched, and what the two say together (`READINGS`).

    Args:
        claims: the answer's rows of the Verdicts grid.
        evidence: `evidence_touched` of the question and the loop.
    """
    rows = []
    for claim in claims.sort_values("ord").itertuples(index=False):
        cited = evidence[[int(claim.ord) in list(ords) for ords in evidence["claim_ords"]]]
        scenes = [_scene_name(s) for s in cited["scene_index"]]
        seen = [_scene_name(s) for s in cited.loc[cited["touched"], "scene_index"]]
        rows.append(
            {
                "ord": int(claim.ord),
                "role": claim.role,
                "verdict": claim.verdict,
                "reading": READINGS[_reading(claim.verdict, scenes, seen)],
                "evidence scenes": ", ".join(scenes),
                "touched": ", ".join(seen),
                "claim": claim.claim,
            }
        )
    return pd.DataFrame(rows)


def _reading(verdict, scenes: list[str], seen: list[str]) -> str:
    if verdict in ("asserted", "contradicted"):
        return verdict
    if not isinstance(verdict, str):
        return "not judged"
    if not scenes:
        return "no evidence"
    return "seen" if seen else "never looked"


def _scene_name(index) -> str:
    return "?" if index is None or pd.isna(index) else str(int(index))
