"""Agreement statistics over categorical labels (LF-VideoQA App. G, Table 8).

Cohen's κ and the confusion matrix come from scikit-learn. Fleiss' κ and Krippendorff's α
(nominal) are written here in a few lines of numpy, so the runtime needs neither statsmodels
nor the krippendorff package; tests check both against those packages to 1e-9.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def cohen_kappa(a: list, b: list) -> float:
    """Cohen's κ of two raters on the same items (NaN when undefined, e.g. one category)."""
    # imported here, not at the top: scikit-learn (with scipy) takes seconds to import, and the
    # pages import this module on their first visit
    from sklearn.metrics import cohen_kappa_score

    if len(a) == 0:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(cohen_kappa_score(a, b))


def cohen_kappa_from_table(table: np.ndarray) -> float:
    """Cohen's κ from a square confusion table of counts (rows: rater a, columns: rater b):
    (p_o − p_e) / (1 − p_e) with p_e from the marginals (Cohen 1960); NaN when undefined
    (no items, or both raters always use one and the same label)."""
    table = np.asarray(table, dtype=float)
    total = table.sum()
    if total == 0:
        return float("nan")
    observed = np.trace(table) / total
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / total**2
    return float((observed - expected) / (1 - expected)) if expected < 1 else float("nan")


def raw_agreement(a: list, b: list) -> float:
    """Share of items both raters label identically."""
    return float(np.mean(np.asarray(a) == np.asarray(b))) if len(a) else float("nan")


def confusion(a: list, b: list, labels: list[str] | None = None) -> pd.DataFrame:
    """Counts of (label by a, label by b); rows are a's labels, columns b's."""
    from sklearn.metrics import confusion_matrix  # lazily, as in cohen_kappa

    labels = labels or sorted(set(a) | set(b))
    matrix = confusion_matrix(a, b, labels=labels)
    return pd.DataFrame(
        matrix, index=pd.Index(labels, name="a"), columns=pd.Index(labels, name="b")
    )


def category_counts(ratings: pd.DataFrame) -> np.ndarray:
    """Items × categories counts from an items × raters label frame (NaN = not rated)."""
    categories = sorted({v for v in ratings.to_numpy().ravel() if isinstance(v, str)})
    return np.stack([(ratings == c).sum(axis=1).to_numpy() for c in categories], axis=1)


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' κ from items × categories counts; every item needs the same number of ratings."""
    table = np.asarray(table, dtype=float)
    raters = table.sum(axis=1)
    if len(table) == 0 or not np.allclose(raters, raters[0]) or raters[0] < 2:
        return float("nan")
    n_items, n = table.shape[0], raters[0]
    p_category = table.sum(axis=0) / (n_items * n)
    p_item = ((table**2).sum(axis=1) - n) / (n * (n - 1))
    p_bar, p_e = p_item.mean(), (p_category**2).sum()
    return float((p_bar - p_e) / (1 - p_e)) if p_e < 1 else float("nan")


def krippendorff_alpha_nominal(table: np.ndarray) -> float:
    """Krippendorff's α (nominal) from items × categories counts; items with < 2 ratings and
    unequal rater counts are fine (coincidence-matrix form, Krippendorff 2011)."""
    table = np.asarray(table, dtype=float)
    m = table.sum(axis=1)
    table = table[m >= 2]
    m = m[m >= 2]
    if len(table) == 0:
        return float("nan")
    # Coincidences o_ck = Σ_u n_uc (n_uk − [c=k]) / (m_u − 1)
    weighted = table / (m - 1)[:, None]
    coincidence = weighted.T @ table - np.diag(weighted.sum(axis=0))
    n_c = coincidence.sum(axis=1)
    total = n_c.sum()
    observed = total - np.trace(coincidence)
    expected = (total**2 - (n_c**2).sum()) / (total - 1)
    return float(1 - observed / expected) if expected > 0 else float("nan")
