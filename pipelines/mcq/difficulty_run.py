"""Compute and store difficulty for the MCQs in the store; summarise it for the CLI and pages.

One run (step `mcq.difficulty`, backend `bertscore`, model all-MiniLM-L6-v2) writes a row per
question into mcq_difficulty; `current_mcq_difficulty` then serves the latest finished run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd

from data_access.store import Store
from data_access.tables.mcq import (
    current_difficulty,
    insert_difficulty,
    latest_predictions,
    mcq_questions,
)
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.mcq.accuracy import (
    accuracy_by_bin,
    accuracy_by_factor_bins,
    accuracy_by_topic,
    accuracy_by_video_type,
)
from pipelines.mcq.bertscore import BACKBONE, DEFAULT_LAYER
from pipelines.mcq.difficulty import (
    N_BINS,
    PairScorer,
    compute_difficulty,
    difficulty_from_raw,
    minilm_f1_scorer,
    raw_bertscores,
)


def run_difficulty(
    store: Store,
    set_name: str | None = None,
    scorer: PairScorer | None = None,
    echo: Callable[[str], None] = lambda _: None,
    executor=None,
    progress=None,
) -> dict:
    """Score every MCQ (of one set, or all), store the run, and return the summary.

    With an `executor` (pipelines.scale) the BERTScores are computed one video per work unit
    and the set-wide normalisation runs here once they are all in; a killed run given again
    reuses the videos already scored.

    Raises:
        ValueError: when the store holds no MCQs, or some videos failed (with their reasons).
    """
    frame = mcq_questions(store, set_name=set_name)
    if frame.empty:
        raise ValueError("no MCQs in the store; run `storyscope import storyvideoqa` first")
    started = time.perf_counter()
    if executor is None:
        result = compute_difficulty(frame, scorer or minilm_f1_scorer())
    else:
        result = difficulty_from_raw(
            frame, _scaled_bertscores(store, frame, set_name, executor, progress)
        )
    seconds = time.perf_counter() - started
    echo(f"difficulty: {len(result)} questions scored in {seconds:.1f}s")
    spec = RunSpec(
        step="mcq.difficulty",
        backend="bertscore",
        model=BACKBONE,
        params={
            "set": set_name,
            "num_layers": DEFAULT_LAYER,
            "idf": False,
            "rescale": False,
            "bins": N_BINS,
            "seconds": round(seconds, 1),
        },
    )
    with store.transaction() as cursor:
        run_id = insert_run(cursor, spec)
        insert_difficulty(cursor, result, run_id)
        finish_run(cursor, run_id, n_items=len(result))
    return {**difficulty_summary(store, set_name), "run_id": run_id, "seconds": round(seconds, 1)}


def video_bertscores(payload: pd.DataFrame) -> dict:
    """Work unit: raw BERTScores of one video's MCQs (runs on a worker; no store)."""
    raw = raw_bertscores(payload, minilm_f1_scorer())
    return {column: raw[column].tolist() for column in ("mcq_id", "b_a", "b_qa")}


def _scaled_bertscores(store, frame, set_name, executor, progress) -> pd.DataFrame:
    from pipelines.scale import Unit, run_batch

    columns = ["mcq_id", "vid", "question", "choices", "gt", "option"]
    units = [
        Unit(str(vid), part[columns], cost=len(part))  # the largest videos first
        for vid, part in frame.groupby("vid", sort=True)
    ]
    batch = run_batch(
        store,
        executor,
        "mcq.difficulty",
        {"set": set_name, "num_layers": DEFAULT_LAYER, "n": len(frame)},
        units,
        video_bertscores,
        lambda _cursor, outcome: outcome.value,  # kept in the ledger until all are in
        progress,
    )
    if not batch.complete:
        reasons = "; ".join(f"{key}: {error}" for key, error in batch.failures[:5])
        raise ValueError(
            f"difficulty: {batch.failed} of {batch.total} videos failed ({reasons}); "
            "run the same command again to retry them"
        )
    return pd.concat([pd.DataFrame(batch.results[u.key]) for u in units], ignore_index=True)


def _bin_rows(frame: pd.DataFrame, accuracy: pd.DataFrame) -> list[dict]:
    rows = []
    for number, part in frame.groupby("bin", sort=True):
        row = {
            "bin": int(number),
            "n": int(len(part)),
            "d_min": round(float(part["d"].min()), 4),
            "d_max": round(float(part["d"].max()), 4),
            "d_mean": round(float(part["d"].mean()), 4),
        }
        if not accuracy.empty:
            sel = accuracy[accuracy["bin"] == number]
            row["accuracy"] = {m: float(a) for m, a in zip(sel["method"], sel["accuracy"])}
        rows.append(row)
    return rows


def difficulty_summary(store: Store, set_name: str | None = None) -> dict:
    """`{"n", "mean": {d_q, d_a, d_qa, d}, "bins": [...]}` of the current difficulty."""
    frame = current_difficulty(store, set_name)
    predictions = latest_predictions(store)
    accuracy = (
        accuracy_by_bin(predictions, frame)
        if not predictions.empty and not frame.empty
        else pd.DataFrame()
    )
    means = {
        k: (round(float(frame[k].mean()), 4) if len(frame) else None)
        for k in ("d_q", "d_a", "d_qa", "d")
    }
    summary = {"n": int(len(frame)), "mean": means, "bins": _bin_rows(frame, accuracy)}
    if not predictions.empty:
        # Tables 8-9 layout (percent per topic, Avg) and Figure 12(c)'s TV / Movie split
        summary["accuracy"] = {
            "by_topic": _records(accuracy_by_topic(predictions)),
            "by_video_type": _records(accuracy_by_video_type(predictions)),
        }
        if not frame.empty:
            # Figure 17: accuracy by bins of each factor, not only of D
            summary["accuracy"]["by_factor_bin"] = _records(
                accuracy_by_factor_bins(predictions, frame)
            )
    return summary


def _records(frame: pd.DataFrame) -> list[dict]:
    return [
        {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
        for row in frame.to_dict(orient="records")
    ]
