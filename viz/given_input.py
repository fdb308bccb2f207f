"""What a model was given for one answer, on the film's timeline: the time ranges of the film
it saw (kept by the setting's budget rule) and the frames it was shown."""

from __future__ import annotations

import plotly.graph_objects as go

from viz.safe import escapes_untrusted
from viz.theme import themed

KEPT_COLOUR = "#1f77b4"
FRAME_COLOUR = "#d62728"


@escapes_untrusted  # (numbers only today; the house rule holds every builder to it)
def given_input_figure(
    covered: list[list[float]], frame_times: list[float] | None, runtime_s: float | None
) -> go.Figure:
    """Bars for the covered ranges (minutes) and ticks for the frames, over the film's runtime.

    Args:
        covered: [[start_s, end_s], ...] of the kept units.
        frame_times: seconds of the frames sent as image parts (None: no frames).
        runtime_s: the film's length, for the axis (None: the covered span's end).
    """
    figure = go.Figure()
    for start, end in covered:
        width = max(end - start, 1.0) / 60.0  # a one-cue range stays visible
        figure.add_trace(
            go.Bar(
                x=[width],
                base=[start / 60.0],
                y=["film seen"],
                orientation="h",
                marker_color=KEPT_COLOUR,
                showlegend=False,
                hovertemplate="%{base:.1f}–%{x:.1f} min<extra></extra>",
            )
        )
    if frame_times:
        figure.add_trace(
            go.Scatter(
                x=[t / 60.0 for t in frame_times],
                y=["frames"] * len(frame_times),
                mode="markers",
                marker={"symbol": "line-ns-open", "size": 14, "color": FRAME_COLOUR},
                name="frames",
                hovertemplate="frame at %{x:.2f} min<extra></extra>",
            )
        )
    end = runtime_s or (covered[-1][1] if covered else 1.0)
    figure.update_layout(
        barmode="overlay",
        height=160,
        xaxis={"title": "film time (min)", "range": [0, end / 60.0]},
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
    )
    return themed(figure)
