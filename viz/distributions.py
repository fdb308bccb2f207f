"""Figures of the Distributions page: LF-VideoQA question shape and StoryVideoQA MCQ topics,
difficulty and accuracy."""

from __future__ import annotations

import numbers

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from data_access.formats.question_types import ALL_TYPES
from data_access.formats.story_topics import QUESTION_TYPES, TOPICS
from data_access.formats.story_topics import STORY_ELEMENTS as _STORY_ELEMENTS
from viz.safe import escapes_untrusted

QUESTION_TYPE_ORDER = list(ALL_TYPES)
STORY_ELEMENTS = list(_STORY_ELEMENTS)
# StoryVideoQA §2: what each story-element code covers (tick labels, so no code goes unexplained)
ELEMENT_NAMES = {
    "C": "characters",
    "A": "actions",
    "L": "locations",
    "CA": "char. + actions",
    "CL": "char. + locations",
    "AL": "actions + loc.",
    "CAL": "char. + actions + loc.",
}
MEASURE_LABELS = {
    "d_q": "D_q (question)",
    "d_a": "D_a (answer)",
    "d_qa": "D_qa (question–answer)",
    "d": "D (overall)",
}
_LAYOUT = dict(height=300, margin=dict(l=10, r=10, t=40, b=10))


@escapes_untrusted
def count_bars(
    counts: pd.Series,
    title: str,
    x_label: str,
    order: list | None = None,
    y_label: str = "questions",
) -> go.Figure:
    """Bars of how many questions (or films: `y_label`) take each value (types, claim counts,
    anchor fifths...), from the counts per value (indexed by value, as `Series.value_counts`):
    the store counts them.

    Built with graph_objects, not plotly.express: px costs ~0.3 s per figure, and this page
    draws six of them.
    """
    if order is None:
        order = sorted(counts.index)
    order = [value for value in order if value in counts.index]
    # a count (claims, scenes, centres per film) is a number: on a linear axis 13 stands apart
    # from 8 instead of next to it; names (Q1, N3) stay categories in the given order
    numeric = bool(order) and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) and float(v).is_integer()
        for v in order
    )
    x = [int(v) for v in order] if numeric else [str(v) for v in order]
    # a count's bar is one unit wide: left to plotly, a bar's width is the smallest gap between
    # two values, so 1 and 24 alone drew a bar from -8 to 10 (negative centres per film)
    width = 0.8 if numeric else None
    figure = go.Figure(go.Bar(x=x, y=[int(counts[v]) for v in order], name="", width=width))
    figure.update_layout(title=title, xaxis_title=x_label, yaxis_title=y_label, **_LAYOUT)
    if numeric:
        figure.update_xaxes(type="linear", tickformat="d", dtick=max(1, -(-max(x) // 10)))
    else:
        figure.update_xaxes(type="category")
    figure.update_yaxes(tickformat="d")
    return figure


@escapes_untrusted
def span_histogram(bins: pd.DataFrame, mean: float | None) -> go.Figure:
    """Histogram of evidence spans in minutes (the paper: 23 minutes on average, §1), drawn
    from binned counts (left_edge, right_edge, n: the bins plotly.js picks for 30 at most,
    data_access.queries.histogram_bins) as the gapless bars a histogram trace draws."""
    figure = go.Figure(
        go.Bar(
            x=(bins["left_edge"] + bins["right_edge"]) / 2,
            y=bins["n"],
            width=bins["right_edge"] - bins["left_edge"],
            customdata=bins[["left_edge", "right_edge"]],
            hovertemplate="%{customdata[0]:.4g}–%{customdata[1]:.4g} min: %{y}<extra></extra>",
            name="span (min)",
        )
    )
    figure.update_layout(
        title=f"Evidence span (mean {float('nan') if mean is None else mean:.1f} min)",
        xaxis_title="span (min)",
        yaxis_title="questions",
        showlegend=False,
        bargap=0,
        **_LAYOUT,
    )
    return figure


@escapes_untrusted
def topic_bars(counts: pd.DataFrame) -> go.Figure:
    """The 14 topics: perception / inference × story elements (StoryVideoQA Fig. 3)."""
    full = pd.MultiIndex.from_product(
        [list(QUESTION_TYPES), STORY_ELEMENTS], names=["question_type", "story_element"]
    )
    table = (
        counts.set_index(["question_type", "story_element"])["n"]
        .reindex(full, fill_value=0)
        .reset_index()
    )
    table["type"] = table["question_type"].map({"P": "perception", "I": "inference"})
    figure = px.bar(
        table,
        x="story_element",
        y="n",
        color="type",
        barmode="group",
        category_orders={"story_element": STORY_ELEMENTS},
        title="MCQ topics (14)",
        labels={"n": "questions", "story_element": "story element"},
    )
    # the codes are explained on the axis itself: C = characters, A = actions, L = locations
    figure.update_xaxes(
        tickvals=STORY_ELEMENTS,
        ticktext=[f"{code}<br>{ELEMENT_NAMES[code]}" for code in STORY_ELEMENTS],
    )
    figure.update_yaxes(tickformat="d", rangemode="tozero")  # whole questions
    figure.update_layout(**_LAYOUT)
    return figure


@escapes_untrusted
def difficulty_figure(buckets: pd.DataFrame) -> go.Figure:
    """Histograms of D_q, D_a, D_qa and D from pre-aggregated buckets, one panel each."""
    buckets = buckets.assign(
        measure=buckets["measure"].map(MEASURE_LABELS).fillna(buckets["measure"])
    )
    figure = px.bar(
        buckets,
        x="left_edge",
        y="n",
        facet_col="measure",
        facet_col_wrap=4,
        category_orders={"measure": list(MEASURE_LABELS.values())},
        labels={"left_edge": "difficulty", "n": "questions"},
        title="Difficulty",
    )
    figure.update_traces(width=buckets["bucket_width"].iloc[0] if not buckets.empty else None)
    figure.update_xaxes(matches=None)
    figure.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
    figure.update_layout(**_LAYOUT)
    return figure


@escapes_untrusted
def accuracy_by_bin_figure(table: pd.DataFrame) -> go.Figure:
    """Accuracy per difficulty bin, one line per method (StoryVideoQA Fig. 20)."""
    figure = px.line(
        table,
        x="bin",
        y="accuracy",
        color="method",
        markers=True,
        labels={"accuracy": "accuracy (%)", "bin": "difficulty bin"},
        title="Accuracy by difficulty bin",
    )
    figure.update_layout(**_LAYOUT)
    return figure


def accuracy_by_topic_table(table: pd.DataFrame) -> pd.DataFrame:
    """Methods × topics (P-C … I-CAL) in percent, the layout of StoryVideoQA Tables 8–9."""
    table = table.assign(topic=table["question_type"] + "-" + table["story_element"])
    wide = table.pivot_table(index="method", columns="topic", values="accuracy").round(1)
    order = [topic for topic in TOPICS if topic in wide.columns]
    overall = (
        table.assign(hits=table["accuracy"] * table["n"]).groupby("method")[["hits", "n"]].sum()
    )
    wide = wide[order]
    wide["Avg"] = (overall["hits"] / overall["n"]).round(1)
    return wide.reset_index()
