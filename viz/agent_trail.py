"""The agents' evidence trail: where an agent looked on the film's timeline against where the
answer was, and evidence touched against recall per setting (docs/SETTINGS.md, "Agents: the
evidence trail").

Tool names, arguments and result texts come from a model and setting labels from a dataset:
every builder is wrapped in `escapes_untrusted`, and hover text is cut with `shorten`.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from viz.safe import escapes_untrusted, shorten
from viz.theme import PALETTE, themed

LOOKED_COLOUR = "#0068c9"
FAILED_COLOUR = "#ff8700"
TOUCHED_COLOUR = "#29b09d"
MISSED_COLOUR = "#ff2b2b"
ANCHOR_COLOUR = "#31333F"
EVIDENCE_LANE = "evidence scenes"
MIN_BAR_MIN = 0.05  # a single-time call or evidence point stays visible (3 s)


def _call_lane(turn, call_index, tool) -> str:
    return f"turn {int(turn)}·{int(call_index)} {shorten(str(tool), 24)}"


def _minutes(start: float, end: float) -> tuple[float, float]:
    """(base, width) of a bar in minutes."""
    return start / 60.0, max((end - start) / 60.0, MIN_BAR_MIN)


@escapes_untrusted
def trail_timeline_figure(
    calls: pd.DataFrame,
    evidence: pd.DataFrame,
    anchor_s: float | None = None,
    runtime_s: float | None = None,
) -> go.Figure:
    """One agent loop on the film's timeline: a lane per tool call (turn order, top down) with
    the intervals it touched, a lane of the question's evidence scenes (touched in green, never
    touched in red), each evidence scene shaded across every lane, and the anchor marked.

    Args:
        calls: one row per call: turn, call_index, tool, arguments (text), intervals
            ([[start_s, end_s], ...]), result_chars, error (None when it ran).
        evidence: one row per evidence scene: scene_index, location, start_s, end_s,
            claim_ords, touched (bool).
        anchor_s: the question's anchor time (None: not drawn).
        runtime_s: the film's length (None: the furthest interval's end).
    """
    figure = go.Figure()
    lanes = [EVIDENCE_LANE]
    ends = [0.0]
    for call in calls.itertuples(index=False):
        lane = _call_lane(call.turn, call.call_index, call.tool)
        lanes.append(lane)
        failed = isinstance(call.error, str) and call.error != ""
        hover = (
            f"<b>{shorten(str(call.tool), 40)}</b> (turn {int(call.turn)})<br>"
            f"arguments: {shorten(str(call.arguments or ''), 160)}<br>"
            + (
                f"failed: {shorten(call.error, 160)}"
                if failed
                else f"{call.result_chars} chars back"
            )
        )
        spans = [list(span) for span in (call.intervals if call.intervals is not None else [])]
        if not spans:  # nothing touched (a failed call): a marker at the lane's start says so
            figure.add_trace(
                go.Scatter(
                    x=[0.0],
                    y=[lane],
                    mode="markers",
                    marker={"symbol": "x", "size": 11, "color": FAILED_COLOUR},
                    showlegend=False,
                    hovertext=[hover],
                    hoverinfo="text",
                )
            )
            continue
        bases, widths = zip(*(_minutes(float(a), float(b)) for a, b in spans))
        ends.extend(float(b) for _, b in spans)
        figure.add_trace(
            go.Bar(
                base=list(bases),
                x=list(widths),
                y=[lane] * len(spans),
                orientation="h",
                marker_color=FAILED_COLOUR if failed else LOOKED_COLOUR,
                showlegend=False,
                hovertext=[hover] * len(spans),
                hoverinfo="text",
            )
        )
    for touched, colour, name in (
        (True, TOUCHED_COLOUR, "touched"),
        (False, MISSED_COLOUR, "never touched"),
    ):
        scenes = evidence[evidence["touched"] == touched] if len(evidence) else evidence
        if scenes.empty:
            continue
        bases, widths = zip(*(_minutes(a, b) for a, b in zip(scenes["start_s"], scenes["end_s"])))
        ends.extend(float(b) for b in scenes["end_s"])
        figure.add_trace(
            go.Bar(
                base=list(bases),
                x=list(widths),
                y=[EVIDENCE_LANE] * len(scenes),
                orientation="h",
                marker_color=colour,
                name=f"evidence scene, {name}",
                hovertext=[
                    f"scene {_scene(s)} · {shorten(str(loc or ''), 40)}<br>"
                    f"claims {', '.join(str(int(c)) for c in claims)} · {name}"
                    for s, loc, claims in zip(
                        scenes["scene_index"], scenes["location"], scenes["claim_ords"]
                    )
                ],
                hoverinfo="text",
            )
        )
        for start, end in zip(scenes["start_s"], scenes["end_s"]):
            figure.add_vrect(
                x0=start / 60.0,
                x1=max(end / 60.0, start / 60.0 + MIN_BAR_MIN),
                fillcolor=colour,
                opacity=0.12,
                line_width=0,
                layer="below",
            )
    if anchor_s is not None and not math.isnan(anchor_s):
        # a legend entry rather than a text label: a label collided with the axis ticks
        figure.add_trace(
            go.Scatter(
                x=[anchor_s / 60.0] * 2,
                y=[lanes[0], lanes[-1]],
                mode="lines",
                line={"dash": "dash", "color": ANCHOR_COLOUR, "width": 2},
                name="anchor",
                hovertemplate="anchor at %{x:.1f} min<extra></extra>",
            )
        )
    end = runtime_s or max(ends) or 1.0
    figure.update_layout(
        barmode="overlay",
        height=150 + 26 * len(lanes),
        # a little room left of 0, so a failed call's marker at 0 is drawn whole
        xaxis={"title": "film time (min)", "range": [-end / 60.0 * 0.015, end / 60.0]},
        yaxis={"categoryorder": "array", "categoryarray": lanes[::-1], "type": "category"},
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
    )
    return themed(figure)


def _scene(index) -> str:
    return "?" if index is None or pd.isna(index) else str(int(index))


@escapes_untrusted
def touched_recall_figure(per_answer: pd.DataFrame) -> go.Figure:
    """Per answered, judged question: the share of its evidence scenes the agent touched (x)
    against the answer's recall (y), a colour per setting.

    Args:
        per_answer: setting_label, question_id, touched_share, recall (rows missing either
            are left out).
    """
    figure = go.Figure()
    shown = per_answer.dropna(subset=["touched_share", "recall"])
    for index, (label, rows) in enumerate(shown.groupby("setting_label", sort=True)):
        figure.add_trace(
            go.Scatter(
                x=rows["touched_share"],
                y=rows["recall"],
                mode="markers",
                name=shorten(str(label), 60),
                marker={"size": 10, "opacity": 0.75, "color": PALETTE[index % len(PALETTE)]},
                hovertext=[str(q) for q in rows["question_id"]],
                hovertemplate="%{hovertext}<br>touched %{x:.0%} · recall %{y:.0%}<extra></extra>",
            )
        )
    figure.update_layout(
        height=360,
        xaxis={"title": "share of evidence scenes touched", "range": [-0.05, 1.05]},
        yaxis={"title": "recall (Eq. 1)", "range": [-0.05, 1.05]},
        legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
    )
    return themed(figure)


def _cell(value, interval, digits: int, scale: float) -> str:
    if value is None:
        return "—"
    low, high = (None if x is None else x * scale for x in interval)
    bounds = "—" if low is None else f"{low:.{digits}f}, {high:.{digits}f}"
    return f"{value * scale:.{digits}f} [{bounds}]"


# the per-setting table's measures: (row key, column title, decimals, scale); shares in percent
# as the Verdicts metrics tables beside it
TABLE_MEASURES = (
    ("touched_share", "evidence touched (%)", 1, 100.0),
    ("tiou", "tIoU (%)", 1, 100.0),
    ("turns", "steps (turns)", 1, 1.0),
    ("tool_calls", "tool calls", 1, 1.0),
    ("tokens", "tokens", 0, 1.0),
)


def trail_settings_table(rows: list[dict]) -> pd.DataFrame:
    """The per-setting trail rows (`pipelines.metrics.trail_table`) as a table to read: means
    with 95% intervals over questions, outcome counts and the touched-recall correlation."""
    table = []
    for row in rows:
        rho = row["touched_recall_rho"]
        table.append(
            {
                "setting": row["label"],
                "tier": row["tier"],
                "questions": row["n"],
                **{
                    title: _cell(row[key], row[f"{key}_ci"], digits, scale)
                    for key, title, digits, scale in TABLE_MEASURES
                },
                "answered": row["answered"],
                "step limit": row["step_limit"],
                "failed": row["failed"],
                "bad tool calls": row["bad_calls"],
                "ρ touched~recall": "—" if rho is None else f"{rho:.2f} (n={row['recall_n']})",
            }
        )
    return pd.DataFrame(table)
