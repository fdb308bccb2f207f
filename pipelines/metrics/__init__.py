"""LF-VideoQA metrics: Eq. 1 per question, question means with bootstrap 95% intervals, by
setting (Table 3) or setting × question type (Table 4).

    from pipelines.metrics import metrics_table
    table = metrics_table(store, judge="lexical", by="setting,type")   # .rows: JSON-ready dicts
"""

from pipelines.metrics.bootstrap import bootstrap_means, naive_bootstrap_means, resample_counts
from pipelines.metrics.eq1 import (
    DEFAULT_PRECISION_CONVENTION,
    METRICS,
    PRECISION_CONVENTIONS,
    per_answer_scores,
    per_question_scores,
    precision_convention_note,
)
from pipelines.metrics.tables import MetricsTable, lexical_table, metrics_table, pick_judge

__all__ = [
    "DEFAULT_PRECISION_CONVENTION",
    "METRICS",
    "PRECISION_CONVENTIONS",
    "MetricsTable",
    "bootstrap_means",
    "lexical_table",
    "metrics_table",
    "naive_bootstrap_means",
    "per_answer_scores",
    "per_question_scores",
    "pick_judge",
    "precision_convention_note",
    "resample_counts",
]
