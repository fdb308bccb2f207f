"""Belief groups at film scale: one lane per (character, group) instead of one per belief.

Each lane shows the group's unchanged beliefs collapsed into one box (from the first one
formed to the end of the span they are held) labelled with their count, and draws every
belief that changes on top of it, as in the paper's lanes (LF-VideoQA App. E): a red ✕ where
a false belief forms, a diamond where a belief is revised, a grey square where a told claim is
rejected. Hover text is escaped: belief contents come from a model or a screenplay.
"""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go

UNCHANGED_FILL = "rgba(31,119,180,0.25)"


def _minutes(seconds: pd.Series) -> pd.Series:
    return seconds / 60.0


def lane_name(holder: str, group: str, count: int) -> str:
    """The row label of a group lane."""
    return f"{holder} · {group} ({count})"


def belief_groups_figure(groups: pd.DataFrame, changing: pd.DataFrame) -> go.Figure:
    """Group lanes over film time (minutes).

    Args:
        groups: rows of `pipelines.beliefs.character_summary.belief_groups`.
        changing: the beliefs that change, with a `group` column (false, revised, rejected).
    """
    rows = [
        lane_name(h, g, n) for h, g, n in zip(groups["holder"], groups["group"], groups["beliefs"])
    ]
    lane_of = {(h, g): r for h, g, r in zip(groups["holder"], groups["group"], rows)}
    figure = go.Figure()
    spans = groups.dropna(subset=["start_s", "end_s"])
    figure.add_bar(
        name="unchanged beliefs",
        orientation="h",
        y=[lane_of[(h, g)] for h, g in zip(spans["holder"], spans["group"])],
        base=_minutes(spans["start_s"]),
        x=_minutes(spans["end_s"] - spans["start_s"]).clip(lower=0.5),
        marker=dict(color=UNCHANGED_FILL, line=dict(color="#1f77b4", width=1)),
        text=[f"{n} unchanged" if n else "" for n in spans["unchanged"]],
        textposition="inside",
        insidetextanchor="start",
        hovertemplate="%{y}<br>%{base:.0f}–%{x:.0f} min<extra></extra>",
    )
    _add_changes(figure, changing, lane_of)
    figure.update_yaxes(categoryorder="array", categoryarray=rows[::-1])
    figure.update_layout(
        height=140 + 30 * len(rows),
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis_title="film time (min)",
        barmode="overlay",
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
        hovermode="closest",
    )
    return figure


def _add_changes(figure: go.Figure, changing: pd.DataFrame, lane_of: dict) -> None:
    if changing.empty:
        return
    lanes = [lane_of.get((h, g)) for h, g in zip(changing["holder"], changing["group"])]
    frame = changing.assign(lane=lanes).dropna(subset=["lane"])
    hover = (
        frame["belief_id"].astype(str).map(html.escape)
        + ": "
        + frame["content"].fillna("").astype(str).str.slice(0, 200).map(html.escape)
    )
    frame = frame.assign(hover=hover)
    marks = [
        (
            "false belief forms",
            frame[frame["is_false"].fillna(False).astype(bool)],
            "start_s",
            "x",
            "#d62728",
        ),
        ("revised", frame[frame["revised_at_scene"].notna()], "end_s", "diamond", "#444"),
        (
            "rejected",
            frame[frame["rejected"].fillna(False).astype(bool)],
            "start_s",
            "square",
            "#999",
        ),
    ]
    for name, part, at, symbol, colour in marks:
        part = part.dropna(subset=[at])
        if part.empty:
            continue
        figure.add_scatter(
            name=name,
            mode="markers",
            x=_minutes(part[at]),
            y=part["lane"],
            marker=dict(symbol=symbol, size=10, color=colour),
            text=part["hover"],
            hovertemplate="%{text}<extra>" + name + "</extra>",
        )
