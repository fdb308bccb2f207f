"""Figure: a judge's StorySumm balanced accuracy beside the released detectors'."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from viz.safe import escapes_untrusted

KIND_COLOURS = {"our judge": "#d62728", "released detector": "#7f7f7f"}


@escapes_untrusted
def judge_vs_anchors_figure(frame: pd.DataFrame) -> go.Figure:
    """Horizontal bars of summary-level balanced accuracy, our judges highlighted; 0.5 = chance.

    Args:
        frame: `pipelines.agreement.storysumm_eval.comparison_frame` (name, kind,
            balanced_accuracy, ...).
    """
    ordered = frame.sort_values("balanced_accuracy")
    figure = go.Figure()
    for kind, colour in KIND_COLOURS.items():
        part = ordered[ordered["kind"] == kind]
        figure.add_bar(
            x=part["balanced_accuracy"],
            y=part["name"],
            orientation="h",
            name=kind,
            marker_color=colour,
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
        )
    figure.add_vline(x=0.5, line_dash="dot", annotation_text="chance")
    figure.update_layout(
        xaxis={"title": "summary-level balanced accuracy vs humans", "range": [0, 1]},
        yaxis={"categoryorder": "array", "categoryarray": list(ordered["name"])},
        height=max(260, 28 * len(ordered) + 80),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        barmode="overlay",
    )
    return figure
