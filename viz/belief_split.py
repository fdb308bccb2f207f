"""The knowledge gap between two characters over a film: how many beliefs each holds that the
other does not (yet), scene by scene (`pipelines.beliefs.knowledge_split.gap_over_time`).

One solid step line per direction ("A holds, B does not"); a dotted line of the same colour
counts those that formed while B was not on screen. A line rises when one learns something the
other has not, and falls when the other is told it: the gap's arc. Names are escaped (they come
from a screenplay or a model).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from viz.belief_groups import STORY_AXIS
from viz.safe import escapes_untrusted

COLOURS = ("#1f77b4", "#d62728")
# the first direction drawn wider, so that equal counts (a Sally-Anne split: one each) show both
WIDTHS = (4, 2)


@escapes_untrusted
def knowledge_gap_figure(gap: pd.DataFrame) -> go.Figure:
    """Step lines over film time (minutes), or over scene order for a story without times.

    Args:
        gap: rows of `gap_over_time` (holder, other, scene_index, start_s, unshared, away).
    """
    clock = bool(gap["start_s"].notna().any()) if not gap.empty else True
    figure = go.Figure()
    for colour, width, ((holder, other), part) in zip(
        COLOURS, WIDTHS, gap.groupby(["holder", "other"], sort=False)
    ):
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
                line=dict(shape="hv", color=colour, dash=dash, width=width),
                hovertemplate="%{y}",  # the trace name (escaped) labels it
            )
    figure.update_layout(
        height=320,
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis_title="film time (min)" if clock else STORY_AXIS,
        yaxis_title="beliefs held alone",
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
        hovermode="x unified",
    )
    return figure
