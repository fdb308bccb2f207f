"""Belief lanes in the style of the LF-VideoQA paper's Figures 1–4 (App. E).

Layout, as in the paper: one lane per character, each belief a box from the moment it forms to
the moment it is revised; a dashed box is a false belief, an arrow a revision, a grey box a
claim the character rejects. How a belief formed (told / witnessed / inferred) is a marker at
its left edge. Meta-beliefs (what X thinks Y believes) get their own lane per holder, drawn as
points at the scene where they form.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go

from data_access.formats.film_time import film_clock
from viz.safe import escapes_untrusted

KIND_MARKERS = {
    "witnessed": ("circle", "witnessed"),
    "told": ("square", "told"),
    "inferred": ("triangle-up", "inferred"),
    "false": ("x", "false belief"),
    "revised": ("diamond", "revised"),
}
TRUE_FILL, FALSE_FILL, REJECTED_FILL = (
    "rgba(31,119,180,0.30)",
    "rgba(214,39,40,0.18)",
    "rgba(160,160,160,0.35)",
)
META_COLOUR = "#9467bd"


def _flag(value) -> bool:
    """A boolean column value, NULL (pd.NA / None / NaN) read as False."""
    return bool(value) if value is not None and not pd.isna(value) else False


def _time_axis(beliefs: pd.DataFrame, meta: pd.DataFrame) -> str:
    """Minutes when scenes have times (films); scene numbers otherwise (ToM stories)."""
    has_times = beliefs["start_s"].notna().any() if not beliefs.empty else False
    if not has_times and not meta.empty:
        has_times = meta["start_s"].notna().any()
    return "minutes" if has_times else "scenes"


def _span(row: pd.Series, axis: str) -> tuple[float, float]:
    if axis == "minutes" and pd.notna(row["start_s"]):
        end = row["end_s"] if pd.notna(row["end_s"]) else row["start_s"]
        return float(row["start_s"]) / 60.0, float(end) / 60.0
    return float(row["scene_index"]), float(row["end_scene"])


def lane_rows(beliefs: pd.DataFrame, meta: pd.DataFrame) -> list[str]:
    """Row labels top to bottom: each holder's beliefs, then that holder's meta-belief lane."""
    rows: list[str] = []
    holders = list(dict.fromkeys(list(beliefs["holder"]) + list(meta["holder"])))
    for holder in holders:
        rows += [f"{holder} · {b}" for b in beliefs.loc[beliefs["holder"] == holder, "belief_id"]]
        if (meta["holder"] == holder).any():
            rows.append(f"{holder} · meta")
    return rows


def _belief_box(row: pd.Series, y: int, axis: str, selected: bool) -> dict:
    """One belief as a box on its row: dashed red when false, grey when rejected."""
    x0, x1 = _span(row, axis)
    x1 = max(x1, x0 + (0.4 if axis == "scenes" else 0.5))
    rejected, is_false = _flag(row["rejected"]), _flag(row["is_false"])
    fill = REJECTED_FILL if rejected else FALSE_FILL if is_false else TRUE_FILL
    colour = "#777" if rejected else "#d62728" if is_false else "#1f77b4"
    return dict(
        type="rect",
        x0=x0,
        x1=x1,
        y0=y - 0.35,
        y1=y + 0.35,
        layer="below",
        line=dict(color=colour, dash="dash" if is_false else "solid", width=4 if selected else 1.5),
        fillcolor=fill,
        name="false" if is_false else "rejected" if rejected else "belief",
    )


@escapes_untrusted
def belief_lanes_figure(
    beliefs: pd.DataFrame, meta: pd.DataFrame | None = None, selected: str | None = None
) -> go.Figure:
    """Belief lanes for one or more characters (pick two to compare, as in the paper's Fig. 2).

    Args:
        beliefs: rows of `beliefs_view.belief_lanes`.
        meta: rows of `beliefs_view.meta_belief_lane` (may be empty).
        selected: "holder · belief_id" of a belief to outline.

    Returns:
        A figure with one y row per belief (rects: solid true, dashed false, grey rejected),
        kind markers at each start, revision arrows, and a meta-belief lane per holder.
    """
    meta = meta if meta is not None else pd.DataFrame(columns=["holder", "start_s", "scene_index"])
    axis = _time_axis(beliefs, meta)
    rows = lane_rows(beliefs, meta)
    figure = go.Figure()
    figure.update_yaxes(
        tickmode="array",
        # room under the last lane: a meta-belief label drawn below its star was cut by the axis
        range=[len(rows) - 0.5 + (0.6 if not meta.empty else 0.0), -0.5],
        tickvals=list(range(len(rows))),
        ticktext=rows,
        zeroline=False,
    )
    # shapes and arrows are set in one layout update: Figure.add_shape per belief costs ~80 ms
    # each (validation and a layout copy), 4 s for a 50-belief lane at paper scale
    shapes = [
        _belief_box(
            row,
            rows.index(f"{row['holder']} · {row['belief_id']}"),
            axis,
            selected == f"{row['holder']} · {row['belief_id']}",
        )
        for _, row in beliefs.iterrows()
    ]
    _add_kind_markers(figure, beliefs, rows, axis)
    _add_meta_lane(figure, meta, rows, axis)
    figure.update_layout(shapes=shapes, annotations=_revision_arrows(beliefs, rows, axis))
    figure.update_layout(
        height=140 + 34 * len(rows),
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis_title="film time (min)" if axis == "minutes" else "scene",
        legend_title_text="how it formed",
        hovermode="closest",
    )
    return figure


def _add_kind_markers(figure: go.Figure, beliefs: pd.DataFrame, rows: list[str], axis: str) -> None:
    for kind, (symbol, name) in KIND_MARKERS.items():
        group = beliefs[beliefs["kind"] == kind]
        if group.empty:
            continue
        xs = [_span(r, axis)[0] for _, r in group.iterrows()]
        ys = [rows.index(f"{r['holder']} · {r['belief_id']}") for _, r in group.iterrows()]
        text = [_hover(r) for _, r in group.iterrows()]
        figure.add_scatter(
            name=name,
            mode="markers",
            x=xs,
            y=ys,
            text=text,
            customdata=[f"{r['holder']} · {r['belief_id']}" for _, r in group.iterrows()],
            marker=dict(symbol=symbol, size=11, color="#333"),
            hovertemplate="%{text}<extra>" + name + "</extra>",
        )


def _hover(row: pd.Series) -> str:
    # contents and names arrive escaped (viz.safe): only our own tags are markup here
    parts = [f"<b>{row['belief_id']}</b> {row['content']}"]
    if row["kind"] == "told" and isinstance(row.get("source_character"), str):
        parts.append(
            f"told by {row['source_character']}" + (" — rejected" if _flag(row["rejected"]) else "")
        )
    if _flag(row["is_false"]):
        parts.append("false belief")
    if isinstance(row.get("revises"), str):
        parts.append(f"revises {row['revises']}")
    return "<br>".join(parts)


def _revision_arrows(beliefs: pd.DataFrame, rows: list[str], axis: str) -> list[dict]:
    """An arrow from the end of the revised belief to the start of the one revising it."""
    arrows = []
    for _, row in beliefs[beliefs["revises"].notna()].iterrows():
        source = f"{row['holder']} · {row['revises']}"
        target = f"{row['holder']} · {row['belief_id']}"
        if source not in rows:
            continue
        old = beliefs[
            (beliefs["holder"] == row["holder"]) & (beliefs["belief_id"] == row["revises"])
        ].iloc[0]
        arrows.append(
            dict(
                x=_span(row, axis)[0],
                y=rows.index(target),
                ax=_span(old, axis)[1],
                ay=rows.index(source),
                xref="x",
                yref="y",
                axref="x",
                ayref="y",
                showarrow=True,
                arrowhead=3,
                arrowwidth=1.5,
                arrowcolor="#444",
                text="",
                name=f"revision:{source}->{target}",
            )
        )
    return arrows


def _add_meta_lane(figure: go.Figure, meta: pd.DataFrame, rows: list[str], axis: str) -> None:
    if meta.empty:
        return
    # meta-beliefs forming at one scene share one star and one label ("M38, M39", or "M38 ×2"
    # for repeats): a label each was drawn on top of the other, unreadable
    points: dict[tuple[float, int], list[pd.Series]] = {}
    for _, row in meta.iterrows():
        has_time = axis == "minutes" and pd.notna(row["start_s"])
        x = float(row["start_s"]) / 60.0 if has_time else float(row["scene_index"])
        points.setdefault((x, rows.index(f"{row['holder']} · meta")), []).append(row)
    figure.add_scatter(
        name="meta-belief",
        mode="markers+text",
        x=[x for x, _ in points],
        y=[y for _, y in points],
        text=[meta_point_label(group) for group in points.values()],
        textposition=_alternating_positions(list(points)),
        hovertext=[
            "<br>".join(
                f"{r['meta_id']} {r['holder']} about {r['about']}: {r['claim']}" for r in group
            )
            for group in points.values()
        ],
        hoverinfo="text",
        marker=dict(symbol="star", size=13, color=META_COLOUR),
    )


def meta_point_label(group: list[pd.Series]) -> str:
    """One short label for the meta-beliefs at one point: the first id, "×n" when it repeats,
    "+k" for k more ids (all of them are in the hover)."""
    ids = [str(row["meta_id"]) for row in group]
    first, others = ids[0], len(set(ids)) - 1
    repeats = ids.count(first)
    return first + (f" ×{repeats}" if repeats > 1 else "") + (f" +{others}" if others else "")


def _alternating_positions(points: list[tuple[float, int]]) -> list[str]:
    """Label above, then below, then above… along each lane, so the labels of neighbouring
    scenes do not run into each other."""
    order = sorted(range(len(points)), key=lambda i: (points[i][1], points[i][0]))
    positions, seen = [""] * len(points), {}
    for i in order:
        lane = points[i][1]
        seen[lane] = seen.get(lane, -1) + 1
        positions[i] = "top center" if seen[lane] % 2 == 0 else "bottom center"
    return positions


def describe_belief(row: pd.Series, escape: Callable[[str], str] = str) -> str:
    """One markdown line for a belief: content, how it formed, false/rejected, its span.

    Args:
        row: a row of `beliefs_view.belief_lanes`.
        escape: makes untrusted text (content, names) inert markdown; the page passes
            `ui.safe_text.inert` (viz stays free of Streamlit).
    """
    text = f"**{escape(row['content'])}** — {row['kind']}"
    if isinstance(row.get("source_character"), str):
        text += f" by {escape(row['source_character'])}"
    if _flag(row["rejected"]):
        text += " · **rejected**"
    if _flag(row["is_false"]):
        text += " · **false**"
    text += (
        f" · forms in S{int(row['scene_index'])} ({film_clock(row['start_s'], missing='no time')})"
    )
    revised = row.get("revised_at_scene")
    text += (
        " · held to the end"
        if revised is None or pd.isna(revised)
        else f" · revised in S{int(revised)}"
    )
    return text
