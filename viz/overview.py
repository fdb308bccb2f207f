"""Figures of the Overview page."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from data_access.formats.question_types import ALL_TYPES
from viz.safe import escapes_untrusted

QUESTION_TYPE_ORDER = list(ALL_TYPES)
STATUS_COLOURS = {"released": "#1f77b4", "candidate": "#ff7f0e", "retired": "#9e9e9e"}


@escapes_untrusted
def questions_by_type_figure(counts: pd.DataFrame) -> go.Figure:
    """Stacked bars of questions per type (Q1–Q8, N1–N3), coloured by status.

    Args:
        counts: columns qtype, status, n.
    """
    figure = px.bar(
        counts,
        x="qtype",
        y="n",
        color="status",
        color_discrete_map=STATUS_COLOURS,
        category_orders={"qtype": QUESTION_TYPE_ORDER},
        labels={"qtype": "question type", "n": "questions"},
    )
    figure.update_layout(
        height=320, margin=dict(l=10, r=10, t=30, b=10), legend_title_text="status"
    )
    return figure


@escapes_untrusted
def mcq_sets_figure(sets: pd.DataFrame) -> go.Figure:
    """Bars of MCQ questions per source, one colour per set.

    Args:
        sets: columns set_name, source, questions.
    """
    figure = px.bar(
        sets,
        x="source",
        y="questions",
        color="set_name",
        barmode="group",
        labels={"set_name": "set"},
    )
    figure.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10))
    return figure
