"""Figures of the PlotTree page (StoryVideoQA §5): the tree as an icicle or sunburst, and a
level-by-time view where each node is a bar over the film time it summarises."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

HIGHLIGHT = "#d62728"


def _colours(nodes: pd.DataFrame, scores: dict[str, float] | None) -> list[str]:
    if not scores:
        return [None] * len(nodes)
    return [HIGHLIGHT if node in scores else "#c6dbef" for node in nodes["node_id"]]


def tree_figure(
    nodes: pd.DataFrame, style: str = "icicle", scores: dict[str, float] | None = None
) -> go.Figure:
    """The hierarchy: one box per node sized by its leaves; retrieved nodes in red.

    Args:
        nodes: rows of `views_plottree.tree_nodes`.
        style: "icicle" or "sunburst".
        scores: node_id -> retrieval score of the top-M nodes to highlight.
    """
    known = set(nodes["node_id"])
    parents = [p if isinstance(p, str) and p in known else "" for p in nodes["parent_id"]]
    hover = [
        f"{n} (level {lvl})<br>{(s or '')[:160]}"
        + (f"<br>score {scores[n]:.3f}" if scores and n in scores else "")
        for n, lvl, s in zip(nodes["node_id"], nodes["level"], nodes["summary"])
    ]
    trace = dict(
        ids=list(nodes["node_id"]),
        labels=list(nodes["node_id"]),
        parents=parents,
        values=[max(1, int(v)) for v in nodes["leaves"]],
        branchvalues="total",
        hovertext=hover,
        hoverinfo="text",
    )
    if scores:
        # without a retrieval, Plotly's own level colours; with one, the top-M nodes in red
        trace["marker"] = dict(colors=_colours(nodes, scores))
    figure = go.Figure(go.Sunburst(**trace) if style == "sunburst" else go.Icicle(**trace))
    figure.update_layout(height=420, margin=dict(l=10, r=10, t=10, b=10))
    return figure


def level_time_figure(
    nodes: pd.DataFrame, scores: dict[str, float] | None = None, selected: str | None = None
) -> go.Figure:
    """Each node as a bar over [start, end] (minutes) on the row of its level (root on top)."""
    figure = go.Figure()
    colours = _colours(nodes, scores)
    timed = nodes.assign(colour=colours).dropna(subset=["start_s", "end_s"])
    figure.add_bar(
        orientation="h",
        y=[f"level {lvl}" for lvl in timed["level"]],
        base=timed["start_s"] / 60.0,
        x=(timed["end_s"] - timed["start_s"]) / 60.0,
        text=list(timed["node_id"]),
        textposition="inside",
        marker=dict(
            color=[c or "#6baed6" for c in timed["colour"]],
            line=dict(width=[3 if n == selected else 0.5 for n in timed["node_id"]], color="black"),
        ),
        customdata=timed[["node_id", "summary"]].to_numpy(),
        hovertemplate="%{customdata[0]}: %{base:.1f}–%{x:.1f} "
        "min<br>%{customdata[1]}<extra></extra>",
        name="nodes",
    )
    levels = sorted(nodes["level"].unique(), reverse=True)
    figure.update_yaxes(
        categoryorder="array", categoryarray=[f"level {lvl}" for lvl in levels][::-1]
    )
    figure.update_layout(
        height=120 + 50 * len(levels),
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis_title="film time (min)",
        showlegend=False,
        barmode="overlay",
    )
    return figure
