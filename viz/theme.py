"""The figures' own light look, so the app can draw them with `theme=None`.

Streamlit's "streamlit" chart theme is applied in the browser on every draw, and it was the
costliest part of drawing some of our charts: switching to PlotTree on the real-data store
took 1.57 s with it and 1.23 s without (median of 5 sidebar clicks, headless Chromium). This
template gives the figures a light look once, on the server: Streamlit's text colour, grid
colours and categorical palette, on white, in Plotly's default font (naming the page's web font
made Plotly's text measuring slower again). Dark mode is not followed.
"""

from __future__ import annotations

import plotly.graph_objects as go

# Streamlit's default categorical palette and light-theme greys (its chart theme's colours)
PALETTE = [
    "#0068c9",
    "#83c9ff",
    "#ff2b2b",
    "#ffabab",
    "#29b09d",
    "#7defa1",
    "#ff8700",
    "#ffd16a",
    "#6d3fc0",
    "#d5dae5",
]
TEXT, GRID, LINE = "#31333F", "#e6eaf1", "#d5dae5"
_AXIS = dict(gridcolor=GRID, linecolor=LINE, zerolinecolor=LINE, tickcolor=LINE, automargin=True)

STORYSCOPE_TEMPLATE = go.layout.Template(
    layout=dict(
        font=dict(size=13, color=TEXT),
        paper_bgcolor="white",
        plot_bgcolor="white",
        colorway=PALETTE,
        xaxis=_AXIS,
        yaxis=_AXIS,
        hoverlabel=dict(bgcolor="white", font=dict(color=TEXT)),
        legend=dict(bgcolor="rgba(0,0,0,0)"),
    )
)


def themed(figure: go.Figure) -> go.Figure:
    """`figure` with the StoryScope template (changed in place and returned)."""
    figure.update_layout(template=STORYSCOPE_TEMPLATE)
    return figure
