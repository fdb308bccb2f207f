"""Our agreement numbers equal scikit-learn, statsmodels and krippendorff to 1e-9 (random data)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from pipelines.agreement.stats import (
    category_counts,
    cohen_kappa,
    cohen_kappa_from_table,
    confusion,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    raw_agreement,
)

LABELS = np.array(["asserted", "contradicted", "omitted"])


def _ratings(seed: int, items: int, raters: int, missing: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, items)
    noisy = np.where(
        rng.random((items, raters)) < 0.7, truth[:, None], rng.integers(0, 3, (items, raters))
    )
    frame = pd.DataFrame(LABELS[noisy]).astype(object)
    if missing:
        frame = frame.mask(rng.random(frame.shape) < missing)
    return frame


def _kripp_reference(frame: pd.DataFrame) -> float:
    codes = {label: i for i, label in enumerate(LABELS)}
    data = frame.T.apply(lambda col: col.map(codes)).to_numpy(float)  # raters × items
    return krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")


@pytest.mark.parametrize("seed", range(5))
def test_random_labels_match_reference_packages(seed):
    frame = _ratings(seed, 300, 4)
    a, b = frame[0].tolist(), frame[1].tolist()
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)
    table = category_counts(frame)
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss(table), abs=1e-9)
    assert krippendorff_alpha_nominal(table) == pytest.approx(_kripp_reference(frame), abs=1e-9)
    assert raw_agreement(a, b) == pytest.approx(np.mean(np.array(a) == np.array(b)))


@pytest.mark.parametrize("seed", range(5))
def test_kappa_of_a_confusion_table_matches_statsmodels_and_sklearn(seed):
    """The Verdicts page's κ comes from stored confusion counts, computed with numpy only."""
    frame = _ratings(50 + seed, 250, 2)
    a, b = frame[0].tolist(), frame[1].tolist()
    table = confusion(a, b, list(LABELS)).to_numpy()
    assert cohen_kappa_from_table(table) == pytest.approx(sm_cohens_kappa(table).kappa, abs=1e-9)
    assert cohen_kappa_from_table(table) == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)


def test_kappa_of_a_table_is_nan_when_undefined():
    assert np.isnan(cohen_kappa_from_table(np.zeros((3, 3))))
    assert np.isnan(cohen_kappa_from_table(np.array([[5, 0], [0, 0]])))


@pytest.mark.parametrize("seed", range(3))
def test_alpha_with_missing_ratings_matches_krippendorff(seed):
    frame = _ratings(100 + seed, 200, 5, missing=0.3)
    table = category_counts(frame)
    assert krippendorff_alpha_nominal(table) == pytest.approx(_kripp_reference(frame), abs=1e-9)


def test_confusion_and_degenerate_cases():
    matrix = confusion(["asserted", "omitted", "omitted"], ["asserted", "asserted", "omitted"])
    assert matrix.loc["omitted", "asserted"] == 1 and matrix.to_numpy().sum() == 3
    assert np.isnan(fleiss_kappa(np.array([[2, 0], [1, 2]])))  # unequal rater counts
    assert np.isnan(krippendorff_alpha_nominal(np.zeros((0, 3))))
