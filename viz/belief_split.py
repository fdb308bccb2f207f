"""The knowledge gap between two characters over a film: how many beliefs each holds that the
other does not (yet), scene by scene (`pipelines.beliefs.knowledge_split.gap_over_time`).

One panel per direction ("A holds, B does not"), one above the other on a shared time axis, so
the two never overlap where their counts are equal (a Sally-Anne split: one each); in each, a
solid step line counts the beliefs held alone and a dotted one those that formed while the other
was not on screen. A line rises when one learns something the other has not, and falls when the
other is told it: the gap's arc. Names are escaped (they come from a screenplay or a model).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.belief_groups import STORY_AXIS
from viz.safe import escapes_untrusted

COLOURS = ("#1f77b4", "#d62728")


@escapes_untrusted
def knowledge_gap_figure(gap: pd.DataFrame) -> go.Figure:
    """Step lines over film time (minutes), or over scene order for a story without times.

    Args:
        gap: rows of `gap_over_time` (holder, other, scene_index, start_s, unshared, away).
    """
    clock = bool(gap["start_s"].notna().any()) if not gap.empty else True
    directions = list(gap.groupby(["holder", "other"], sort=False)) if not gap.empty else []
    titles = [f"{holder} holds, {other} does not" for (holder, other), _ in directions]
    figure = make_subplots(
        rows=max(len(directions), 1),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.12,
        subplot_titles=titles or None,
    )
    top = int(gap[["unshared", "away"]].max().max()) if not gap.empty else 1
    for row, (colour, ((holder, other), part)) in enumerate(zip(COLOURS, directions), start=1):
        part = part.dropna(subset=["start_s"]) if clock else part
        x = part["start_s"] / 60.0 if clock else part["scene_index"].astype(float)
        for column, dash, label in (
            ("unshared", "solid", f"{holder} holds, {other} does not"),
            ("away", "dot", f"… formed while {other} was away"),
        ):
            figure.add_scatter(
                name=label,
                x=x,
                y=part[column],
                mode="lines",
                line=dict(shape="hv", color=colour, dash=dash, width=3),
                hovertemplate="%{y}",  # the trace name (escaped) labels it
                row=row,
                col=1,
            )
        # counts are whole beliefs: integer ticks, the same range in both panels
        figure.update_yaxes(
            title_text="held alone", rangemode="tozero", range=[0, max(top, 1) * 1.1],
            tickformat="d", dtick=max(1, -(-top // 4)), row=row, col=1,
        )  # fmt: skip
    figure.update_xaxes(
        title_text="film time (min)" if clock else STORY_AXIS, row=len(directions) or 1, col=1
    )
    figure.update_layout(
        height=200 + 140 * max(len(directions), 1),
        margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(orientation="h", y=1.08, yanchor="bottom"),
        hovermode="x unified",
    )
    return figure
