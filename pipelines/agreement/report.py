"""Agreement report for one labelled dataset: every judge pair (Cohen's κ, raw agreement, n,
confusion matrix), Fleiss' κ over the items every judge labelled, Krippendorff's α (nominal)
over all items with two or more labels (LF-VideoQA App. G, Table 8)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from data_access.store import Store
from data_access.tables.agreement_labels import dataset_labels
from pipelines.agreement.stats import (
    category_counts,
    cohen_kappa,
    confusion,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    raw_agreement,
)


@dataclass
class AgreementReport:
    """Pairs as dicts (a, b, kappa, alpha, agreement, n), multi-judge statistics, confusions."""

    dataset: str
    judges: list[str]
    pairs: list[dict]
    fleiss: float | None
    fleiss_n: int
    alpha: float | None
    alpha_n: int
    confusions: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict)

    def as_json(self) -> dict:
        """The `storyscope agreement --json` layout."""
        return {"pairs": self.pairs, "fleiss": self.fleiss, "alpha": self.alpha}


def _clean(value: float) -> float | None:
    return None if value is None or np.isnan(value) else float(value)


def pair_rows(wide: pd.DataFrame) -> tuple[list[dict], dict]:
    """Cohen's κ, Krippendorff's α, raw agreement, n and confusion for every judge pair on
    their shared items (App. G, Table 8 reports κ and α per pair)."""
    pairs, confusions = [], {}
    for a, b in itertools.combinations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        left, right = both[a].tolist(), both[b].tolist()
        pairs.append(
            {
                "a": a,
                "b": b,
                "kappa": _clean(cohen_kappa(left, right)),
                "alpha": _clean(krippendorff_alpha_nominal(category_counts(both)))
                if len(both)
                else None,
                "agreement": _clean(raw_agreement(left, right)),
                "n": len(both),
            }
        )
        confusions[(a, b)] = confusion(left, right)
    return pairs, confusions


def agreement_report(
    store: Store, dataset: str, judges: list[str] | None = None
) -> AgreementReport:
    """Agreement among the judges of a dataset (all of them unless `judges` is given).

    Raises:
        ValueError: the dataset has no labels, or fewer than two judges.
    """
    labels = dataset_labels(store, dataset)
    if judges:
        labels = labels[labels.judge_id.isin(judges)]
    if labels.empty:
        raise ValueError(f"dataset {dataset!r} has no judge labels in this store")
    wide = labels.pivot_table(
        index="item_id", columns="judge_id", values="verdict", aggfunc="first"
    ).sort_index(axis=1)
    if wide.shape[1] < 2:
        raise ValueError(
            f"dataset {dataset!r} has labels from one judge only "
            f"({wide.columns[0]}); agreement needs two or more"
        )
    pairs, confusions = pair_rows(wide)
    complete = wide.dropna()
    fleiss = (
        fleiss_kappa(category_counts(complete))
        if wide.shape[1] >= 3 and len(complete)
        else float("nan")
    )
    table = category_counts(wide)
    rated = table.sum(axis=1) >= 2
    return AgreementReport(
        dataset,
        list(wide.columns),
        pairs,
        _clean(fleiss),
        len(complete) if wide.shape[1] >= 3 else 0,
        _clean(krippendorff_alpha_nominal(table)),
        int(rated.sum()),
        confusions,
    )
