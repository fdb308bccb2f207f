"""Krippendorff's α per judge pair (LF-VideoQA App. G, Table 8) next to Cohen's κ, checked
against the `krippendorff` package (a test dependency; the runtime uses our numpy form)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipelines.agreement.report import pair_rows
from pipelines.verdict_metrics import kappa_pairs

LABELS = ["asserted", "contradicted", "omitted"]


def _package_alpha(left: list[str], right: list[str]) -> float:
    import krippendorff

    codes = {name: i for i, name in enumerate(LABELS)}
    data = np.array([[codes[x] for x in left], [codes[x] for x in right]], dtype=float)
    return krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")


def _random_labels(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.choice(LABELS, size=n, p=[0.5, 0.1, 0.4])
    judges = {}
    for name, noise in [("j1", 0.15), ("j2", 0.3), ("j3", 0.45)]:
        flip = rng.random(n) < noise
        labels = np.where(flip, rng.choice(LABELS, size=n), truth).astype(object)
        labels[rng.random(n) < 0.1] = np.nan  # each judge skips some items
        judges[name] = labels
    return pd.DataFrame(judges)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pair_alpha_matches_the_package_on_shared_items(seed):
    wide = _random_labels(seed)
    pairs, _ = pair_rows(wide)
    assert [(p["a"], p["b"]) for p in pairs] == [("j1", "j2"), ("j1", "j3"), ("j2", "j3")]
    for pair in pairs:
        both = wide[[pair["a"], pair["b"]]].dropna()
        expected = _package_alpha(both[pair["a"]].tolist(), both[pair["b"]].tolist())
        assert pair["alpha"] == pytest.approx(expected, abs=1e-9)
        assert pair["n"] == len(both)
    # Less noise, more agreement: the ordering a reader expects.
    assert pairs[0]["alpha"] > pairs[2]["alpha"]


def test_verdicts_page_pair_alpha_from_counts_matches_the_package():
    wide = _random_labels(5).dropna()
    left, right = wide["j1"].tolist(), wide["j2"].tolist()
    confusions = (
        pd.DataFrame(dict(verdict_a=left, verdict_b=right))
        .value_counts()
        .rename("n")
        .reset_index()
        .assign(judge_a="j1", judge_b="j2")
    )
    row = kappa_pairs(confusions).iloc[0]
    assert row["alpha"] == pytest.approx(_package_alpha(left, right), abs=1e-9)
    assert row["alpha"] != pytest.approx(row["kappa"], abs=1e-6)  # two statistics, not one
