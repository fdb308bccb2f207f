"""Figures of the Film page: the scene timeline and the characters × scenes presence grid."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from data_access.formats.film_time import film_clock
from viz.safe import escapes_untrusted

# How a scene got its times (preprocessing, LF-VideoQA §3.1): matched to subtitles, or
# interpolated between matched neighbours; drawn in distinct colours so a reader sees which.
TIME_SOURCE_COLOURS = {
    "matched": "#1f77b4",
    "interpolated": "#ff7f0e",
    "reported": "#2ca02c",
    "none": "#9e9e9e",
}
PRESENCE_COLOURS = {
    "on_screen": "#1f77b4",
    "offscreen_aware": "#9ecae1",
    "offscreen_unaware": "#fdae6b",
    "absent_unmentioned": "#eeeeee",
}


def scene_titles(scenes: pd.DataFrame) -> pd.Series:
    """ "S12 · INT. KITCHEN - NIGHT" per scene; a scene without a heading (screenplays where the
    parser found none, subtitle-only films) is named by its location or its time instead of
    showing "nan"."""
    heading = scenes["heading"].astype("string").str.strip()
    location = scenes["location"].astype("string").str.strip() if "location" in scenes else None
    fallback = location if location is not None else pd.Series(pd.NA, index=scenes.index)
    nothing = pd.Series(float("nan"), index=scenes.index)
    start, end = scenes.get("start_s", nothing), scenes.get("end_s", nothing)
    # its time span as the film's clock ("12:34–15:02"; "12:34" with no end), not "from 0 min"
    at_time = pd.Series(
        [
            pd.NA if pd.isna(a) else film_clock(a) + ("" if pd.isna(b) else f"–{film_clock(b)}")
            for a, b in zip(start, end)
        ],
        index=scenes.index,
        dtype="string",
    )
    name = heading.where(heading.fillna("") != "", fallback)
    name = name.where(name.fillna("") != "", at_time).fillna("(no heading)")
    return "S" + scenes["scene_index"].astype(str) + " · " + name.astype(str)


@escapes_untrusted
def scene_timeline_figure(
    scenes: pd.DataFrame, runtime_s: float | None = None, highlight_scene: int | None = None
) -> go.Figure:
    """Scenes as bars over the runtime (minutes), one row per time source.

    Args:
        scenes: columns scene_index, heading, start_s, end_s, time_source.
        runtime_s: film runtime, to draw the whole axis.
        highlight_scene: a scene to outline (the one open in the reader).
    """
    figure = go.Figure()
    timed = scenes.dropna(subset=["start_s", "end_s"])
    timed = timed.assign(title=scene_titles(timed))
    for source, group in timed.groupby("time_source", sort=False):
        figure.add_bar(
            name=str(source),
            orientation="h",
            y=[str(source)] * len(group),
            base=group["start_s"] / 60.0,
            x=(group["end_s"] - group["start_s"]) / 60.0,
            marker_color=TIME_SOURCE_COLOURS.get(str(source), "#9e9e9e"),
            marker_line=dict(
                width=[3 if i == highlight_scene else 0.5 for i in group["scene_index"]],
                color="black",
            ),
            customdata=group[["scene_index", "title"]].to_numpy(),
            hovertemplate="%{customdata[1]}<br>%{base:.1f}–%{x:.1f} min<extra></extra>",
        )
    end = (runtime_s or (timed["end_s"].max() if not timed.empty else 0) or 0) / 60.0
    figure.update_layout(
        barmode="overlay",
        height=220,
        margin=dict(l=10, r=10, t=30, b=10),
        legend_title_text="scene times",
        xaxis_title="film time (min)",
    )
    figure.update_xaxes(range=[0, max(end, 1)])
    return figure


PRESENCE_ROWS = 25  # characters drawn by default: a real film lists 50+, most of them bit parts


def characters_by_presence(presence: pd.DataFrame) -> list[str]:
    """Characters, those on screen in the most scenes first (ties by name)."""
    if presence.empty:
        return []
    on_screen = (presence["status"] == "on_screen").groupby(presence["character"]).sum()
    ranked = on_screen.reset_index(name="scenes").sort_values(
        ["scenes", "character"], ascending=[False, True], kind="stable"
    )
    return list(ranked["character"])


def _status_label(status: str) -> str:
    return status.replace("_", " ")


@escapes_untrusted
def presence_grid_figure(presence: pd.DataFrame, limit: int | None = None) -> go.Figure:
    """Characters × scenes: one cell per (scene, character), coloured by presence status;
    characters on screen most often on top.

    One heatmap holds every cell (its `text` names each cell's status; empty where the character
    has no record), and one empty marker trace per status draws the legend. A square marker per
    cell drew ~1,300 SVG nodes for a film of 120 scenes and 25 characters, ~0.7 s of the page's
    first render in the browser; a heatmap is drawn as one image.

    Args:
        presence: columns scene_index, character, status.
        limit: draw only this many characters (the most present); None draws all.
    """
    figure = go.Figure()
    characters = characters_by_presence(presence)[:limit]
    presence = presence[presence["character"].isin(characters)]
    names = [str(c) for c in characters]
    statuses = [s for s in PRESENCE_COLOURS if (presence["status"] == s).any()]
    if statuses:
        code = {status: n for n, status in enumerate(PRESENCE_COLOURS)}
        cells = presence.drop_duplicates(["character", "scene_index"], keep="last")
        scenes = sorted(cells["scene_index"].unique())
        column = {s: i for i, s in enumerate(scenes)}
        row = {c: i for i, c in enumerate(characters)}
        z = [[None] * len(scenes) for _ in characters]
        text = [[""] * len(scenes) for _ in characters]
        for character, scene, status in zip(
            cells["character"], cells["scene_index"], cells["status"]
        ):
            if status in code:
                z[row[character]][column[scene]] = code[status]
                text[row[character]][column[scene]] = _status_label(status)
        last = len(PRESENCE_COLOURS) - 1
        colours = list(PRESENCE_COLOURS.values())
        figure.add_heatmap(
            name="presence",
            x=scenes,
            y=names,
            z=z,
            text=text,
            zmin=-0.5,
            zmax=last + 0.5,
            # one flat band per status code
            colorscale=[
                [max(0.0, min(1.0, (n + edge) / (last + 1))), colour]
                for n, colour in enumerate(colours)
                for edge in (0, 1)
            ],
            showscale=False,
            xgap=1,
            ygap=2,
            hovertemplate="%{y} · scene %{x}<extra>%{text}</extra>",
        )
    for status in statuses:  # the legend: one entry per status shown
        figure.add_scatter(
            name=_status_label(status),
            mode="markers",
            x=[None],
            y=[None],
            marker=dict(symbol="square", size=12, color=PRESENCE_COLOURS[status]),
            hoverinfo="skip",
        )
    figure.update_layout(
        height=120 + 28 * len(characters),
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis_title="scene",
        legend_title_text="presence",
    )
    figure.update_yaxes(categoryorder="array", categoryarray=names[::-1])
    return figure


def presence_counts(figure: go.Figure) -> dict[str, int]:
    """Cells per status label in a `presence_grid_figure` (what its legend counts)."""
    from collections import Counter

    heat = [trace for trace in figure.data if trace.type == "heatmap"]
    return dict(Counter(label for row in (heat[0].text if heat else []) for label in row if label))
