"""Metrics benchmark: bootstrap 95% CIs at the paper's scale.

33 settings × 12 groups (all questions + 11 question types) over 6,327 questions, 1,000
resamples, from per-question Eq. 1 scores shaped like the synthetic paper-scale store
(11 types, ~3.8 claims per question, every setting answering every question). Timed:

- vectorised: `pipelines.metrics.tables.interval_rows` for the Table 3 layout (by setting) and
  the Table 4 layout (by setting × type) — what `storyscope metrics` runs. Target ≤ 0.5 s.
- naive baseline, same run: for each (setting, group) cell, a Python loop over resamples that
  draws question indices and takes `nanmean` (`naive_bootstrap_means`). It is timed on a
  sample of cells and scaled by the cell count (say so in the output); `--full-naive` times all.

Usage: python benchmarks/bench_metrics.py [--resamples 1000] [--naive-cells 24] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from data_access.formats.question_types import ALL_TYPES  # noqa: E402
from pipelines.metrics.bootstrap import naive_bootstrap_means  # noqa: E402
from pipelines.metrics.eq1 import METRICS, per_answer_scores  # noqa: E402
from pipelines.metrics.tables import interval_rows  # noqa: E402

QTYPES = list(ALL_TYPES)


def synthetic_per_question(
    n_questions: int = 6327, n_settings: int = 33, seed: int = 7
) -> pd.DataFrame:
    """Per-(setting, question) Eq. 1 scores from random verdict counts."""
    rng = np.random.default_rng(seed)
    qtype = rng.choice(QTYPES, n_questions)
    n_core = rng.integers(1, 5, n_questions)
    n_claims = n_core + rng.integers(0, 3, n_questions)
    frames = []
    for s in range(n_settings):
        skill = rng.uniform(0.05, 0.6)
        core_asserted = rng.binomial(n_core, skill)
        context_asserted = rng.binomial(n_claims - n_core, skill)
        contradicted = rng.binomial(n_claims - core_asserted - context_asserted, 0.1)
        counts = pd.DataFrame(
            {
                "setting_id": f"setting-{s:02d}",
                "setting_label": f"Setting {s}",
                "question_id": [f"q{i:05d}" for i in range(n_questions)],
                "qtype": qtype,
                "n_claims": n_claims,
                "n_core": n_core,
                "n_core_asserted": core_asserted,
                "n_asserted": core_asserted + context_asserted,
                "n_contradicted": contradicted,
            }
        )
        frames.append(per_answer_scores(counts))
    columns = ["setting_id", "setting_label", "question_id", "qtype", *METRICS]
    return pd.concat(frames, ignore_index=True)[columns]


def time_vectorised(per_question: pd.DataFrame, resamples: int) -> tuple[float, float, int]:
    """(wall s, CPU s of this process, cells) for both table layouts."""
    started, cpu = time.perf_counter(), time.process_time()
    by_setting = interval_rows(per_question, ["setting_id"], resamples, seed=0)
    by_type = interval_rows(per_question, ["setting_id", "qtype"], resamples, seed=0)
    return (
        time.perf_counter() - started,
        time.process_time() - cpu,
        len(by_setting) + len(by_type),
    )


def time_naive(
    per_question: pd.DataFrame, resamples: int, cells: int | None
) -> tuple[float, int, int]:
    groups = [g for _, g in per_question.groupby("setting_id")]
    groups += [g for _, g in per_question.groupby(["setting_id", "qtype"])]
    total = len(groups)
    if cells is not None:
        step = max(1, total // cells)
        groups = groups[::step][:cells]
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    for group in groups:
        naive_bootstrap_means(group[list(METRICS)].to_numpy(float), resamples, rng)
    elapsed = time.perf_counter() - started
    return elapsed * total / len(groups), len(groups), total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--naive-cells", type=int, default=24)
    parser.add_argument("--full-naive", action="store_true")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    per_question = synthetic_per_question()
    runs = [time_vectorised(per_question, args.resamples) for _ in range(args.reps)]
    vectorised = min(wall for wall, _, _ in runs)
    cpu = min(seconds for _, seconds, _ in runs)
    cells = runs[0][2]
    naive, timed, total = time_naive(
        per_question, args.resamples, None if args.full_naive else args.naive_cells
    )
    result = {
        "questions": per_question.question_id.nunique(),
        "settings": per_question.setting_id.nunique(),
        "cells": cells,
        "resamples": args.resamples,
        "vectorised_s": round(vectorised, 4),
        "vectorised_runs_s": [round(s, 4) for s, _, _ in runs],
        "vectorised_cpu_s": round(cpu, 4),
        "load_average_1m": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
        "naive_s": round(naive, 2),
        "naive_cells_timed": timed,
        "naive_cells_total": total,
        "speedup": round(naive / vectorised, 1),
        "target_s": 0.5,
        "meets_target": vectorised <= 0.5,
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
