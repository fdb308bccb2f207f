"""Figures of the Question Lab page: the 2-D question map and the leak-score histogram."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from viz.safe import escapes_untrusted

CHECK_COLOURS = {"passed": "#1f77b4", "failed": "#d62728", "not checked": "#9e9e9e"}


@escapes_untrusted
def question_map_figure(points: pd.DataFrame, colour_by: str = "qtype") -> go.Figure:
    """Scatter of questions in 2-D (UMAP or its fallback), coloured by type or check status;
    hovering a point shows the question.

    Args:
        points: rows of `qlab_view.question_map`.
        colour_by: "qtype" or "check_status".
    """
    colour_map = CHECK_COLOURS if colour_by == "check_status" else None
    figure = px.scatter(
        points,
        x="x",
        y="y",
        color=colour_by,
        color_discrete_map=colour_map,
        hover_name="question_id",
        hover_data={"text": True, "x": False, "y": False},
        labels={"qtype": "type", "check_status": "checks"},
    )
    projection = points["model"].iloc[0].split("+")[-1] if not points.empty else "?"
    figure.update_layout(
        height=420,
        margin=dict(l=10, r=10, t=30, b=10),
        title=f"Question map ({projection} projection of MiniLM embeddings)",
    )
    figure.update_xaxes(showticklabels=False, title=None)
    figure.update_yaxes(showticklabels=False, title=None)
    return figure


@escapes_untrusted
def leak_histogram(results: pd.DataFrame, threshold: float) -> go.Figure:
    """Leak scores (share of the gold's content words already in the question) with the
    threshold the check uses (LF-VideoQA Table 23 self-test)."""
    # the legend says "passed" / "failed", not the column's True / False
    outcome = results["passed"].map({True: "passed", False: "failed"})
    figure = px.histogram(
        results.assign(checks=outcome),
        x="leak_score",
        color="checks",
        nbins=20,
        color_discrete_map=CHECK_COLOURS,
        labels={"leak_score": "leak score"},
    )
    figure.add_vline(x=threshold, line_dash="dash", annotation_text=f"threshold {threshold}")
    figure.update_layout(height=280, margin=dict(l=10, r=10, t=30, b=10), yaxis_title="questions")
    return figure
