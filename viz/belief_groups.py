"""Belief groups at film scale: one lane per (character, group) instead of one per belief.

Each lane shows the group's unchanged beliefs collapsed into one box (from the first one
formed to the end of the span they are held) labelled with their count, and draws every
belief that changes on top of it, as in the paper's lanes (LF-VideoQA App. E): a red ✕ where
a false belief forms, a diamond where a belief is revised, a grey square where a told claim is
rejected. Hover text is escaped: belief contents come from a model or a screenplay.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from viz.safe import escapes_untrusted

UNCHANGED_FILL = "rgba(31,119,180,0.25)"
# a ToM story (Hi-ToM, OpenToM) has no film clock: its lanes run over its own scene order
STORY_AXIS = "story scene (no film clock)"


def _minutes(seconds: pd.Series) -> pd.Series:
    return seconds / 60.0


def lane_name(holder: str, group: str, count: int) -> str:
    """The row label of a group lane."""
    return f"{holder} · {group} ({count})"


@escapes_untrusted
def belief_groups_figure(groups: pd.DataFrame, changing: pd.DataFrame) -> go.Figure:
    """Group lanes over film time (minutes), or over scene order for a story without times.

    Args:
        groups: rows of `pipelines.beliefs.character_summary.belief_groups`.
        changing: the beliefs that change, with a `group` column (false, revised, rejected).
    """
    rows = [
        lane_name(h, g, n) for h, g, n in zip(groups["holder"], groups["group"], groups["beliefs"])
    ]
    lane_of = {(h, g): r for h, g, r in zip(groups["holder"], groups["group"], rows)}
    figure = go.Figure()
    clock = _has_clock(groups)
    spans = groups.dropna(subset=["start_s", "end_s"] if clock else ["first_scene", "last_scene"])
    start, end = _group_span(spans, clock)
    figure.add_bar(
        name="unchanged beliefs",
        orientation="h",
        y=[lane_of[(h, g)] for h, g in zip(spans["holder"], spans["group"])],
        base=start,
        x=(end - start).clip(lower=0.5),
        marker=dict(color=UNCHANGED_FILL, line=dict(color="#1f77b4", width=1)),
        text=[f"{n} unchanged" if n else "" for n in spans["unchanged"]],
        textposition="inside",
        insidetextanchor="start",
        hovertemplate="%{y}<extra></extra>",
    )
    _add_changes(figure, changing, lane_of, clock)
    figure.update_yaxes(categoryorder="array", categoryarray=rows[::-1])
    figure.update_layout(
        height=140 + 30 * len(rows),
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis_title="film time (min)" if clock else STORY_AXIS,
        barmode="overlay",
        legend=dict(orientation="h", y=1.02, yanchor="bottom"),
        hovermode="closest",
    )
    return figure


def _has_clock(groups: pd.DataFrame) -> bool:
    """True for a film (scenes with times); a ToM story has only its scene order."""
    return bool(groups["start_s"].notna().any()) if not groups.empty else True


def _group_span(spans: pd.DataFrame, clock: bool) -> tuple[pd.Series, pd.Series]:
    """Where each group lane's box starts and ends: minutes on a film, scenes in a story."""
    if clock:
        return _minutes(spans["start_s"]), _minutes(spans["end_s"])
    first = spans["first_scene"].astype(float)
    return first, spans["last_scene"].astype(float) + 1


def _add_changes(
    figure: go.Figure, changing: pd.DataFrame, lane_of: dict, clock: bool = True
) -> None:
    if changing.empty:
        return
    lanes = [lane_of.get((h, g)) for h, g in zip(changing["holder"], changing["group"])]
    frame = changing.assign(lane=lanes).dropna(subset=["lane"])
    hover = (
        frame["belief_id"].astype(str)
        + ": "
        + frame["content"].fillna("").astype(str).str.slice(0, 200)
    )
    frame = frame.assign(hover=hover)
    # where a change is drawn: formation / revision time on a film, scene in a story
    formed, revised = ("start_s", "end_s") if clock else ("scene_index", "revised_at_scene")
    marks = [
        (
            "false belief forms",
            frame[frame["is_false"].fillna(False).astype(bool)],
            formed,
            "x",
            "#d62728",
        ),
        ("revised", frame[frame["revised_at_scene"].notna()], revised, "diamond", "#444"),
        (
            "rejected",
            frame[frame["rejected"].fillna(False).astype(bool)],
            formed,
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
            x=_minutes(part[at]) if clock else part[at].astype(float),
            y=part["lane"],
            marker=dict(symbol=symbol, size=10, color=colour),
            text=part["hover"],
            hovertemplate="%{text}<extra>" + name + "</extra>",
        )
