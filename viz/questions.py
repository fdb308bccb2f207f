"""The evidence map of one question, as under each rubric in LF-VideoQA Tables 9–11: the film
from start to end, each evidence scene at its time with its location and claim numbers, and the
anchor scene marked with a triangle ▲."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go

from data_access.formats.film_time import film_clock
from viz.safe import escapes_untrusted

# film time as the paper prints it (h:mm:ss, or m:ss under an hour); one formatter for all layers
clock = film_clock


def claim_range(ords: list[int]) -> str:
    """Claim numbers as the paper writes them: "claim 5", "claims 1, 2", "claims 1–5"."""
    ords = sorted(int(o) for o in ords)
    if not ords:
        return "anchor"
    if len(ords) == 1:
        return f"claim {ords[0]}"
    if len(ords) > 2 and ords == list(range(ords[0], ords[-1] + 1)):
        return f"claims {ords[0]}–{ords[-1]}"
    return "claims " + ", ".join(str(o) for o in ords)


def evidence_summary(rubric: pd.DataFrame, evidence: pd.DataFrame) -> str:
    """The paper's header line: "3 core / 5 claims evidence: 2 scenes over 10 min".

    The span is "the runtime between the earliest and latest cited scene" (LF-VideoQA Table 1):
    from the earliest evidence time to the latest cited scene's end when `scene_end_s` is known,
    else to the latest evidence time (which can be shorter than the paper's printed span).
    """
    core = int((rubric["role"] == "core").sum())
    cited = evidence[evidence["claim_ords"].map(len) > 0]
    times = cited["time_s"].dropna()
    ends = cited["scene_end_s"].fillna(cited["time_s"]) if "scene_end_s" in cited else times
    span = round((ends.max() - times.min()) / 60.0) if len(times) else 0
    scenes = f"{len(cited)} scene" + ("" if len(cited) == 1 else "s")
    return f"{core} core / {len(rubric)} claims · evidence: {scenes} over {span} min"


def rubric_markdown(rubric: pd.DataFrame, escape: Callable[[str], str] = str) -> str:
    """Rubric lines with core ■ / context □ markers and claim numbers.

    Args:
        rubric: rows with ord, role, text.
        escape: makes a claim's (untrusted) text inert markdown; the page passes
            `ui.safe_text.inert` (viz stays free of Streamlit).
    """
    return "\n".join(
        f"{'■' if role == 'core' else '□'} {ord_} {escape(text)}  "
        for ord_, role, text in zip(rubric["ord"], rubric["role"], rubric["text"])
    )


@escapes_untrusted
def evidence_map_figure(evidence: pd.DataFrame, runtime_s: float | None) -> go.Figure:
    """Film timeline with evidence ticks (time, location, claims) and the anchor ▲.

    Args:
        evidence: rows of `questions_view.evidence_map`.
        runtime_s: film runtime; the axis runs from 0 to it ("end of film").
    """
    timed = evidence.dropna(subset=["time_s"])
    end = float(runtime_s or (timed["time_s"].max() if not timed.empty else 60.0))
    figure = go.Figure()
    figure.add_shape(type="line", x0=0, x1=end / 60.0, y0=0, y1=0, line=dict(color="#555", width=3))
    cited = timed[timed["claim_ords"].map(len) > 0].sort_values("time_s")
    figure.add_scatter(
        name="evidence",
        mode="markers+text",
        x=cited["time_s"] / 60.0,
        y=[0] * len(cited),
        marker=dict(symbol="line-ns-open", size=22, line=dict(width=3, color="#1f77b4")),
        text=[clock(t) for t in cited["time_s"]],
        # neighbouring times' labels alternate above and below the line so close scenes'
        # labels do not print over each other
        textposition=["top center" if i % 2 == 0 else "bottom center" for i in range(len(cited))],
        hovertext=[
            f"{clock(t)} {loc} ({claim_range(c)})"
            for t, loc, c in zip(cited["time_s"], cited["location"], cited["claim_ords"])
        ],
        hoverinfo="text",
    )
    anchor = timed[timed["is_anchor"]]
    figure.add_scatter(
        name="anchor ▲",
        mode="markers",
        x=anchor["time_s"] / 60.0,
        y=[-0.55] * len(anchor),
        marker=dict(symbol="triangle-up", size=16, color="#d62728"),
        hovertext=[
            f"anchor: {clock(t)} {loc}" for t, loc in zip(anchor["time_s"], anchor["location"])
        ],
        hoverinfo="text",
    )
    figure.add_annotation(x=0, y=-0.85, text="start of film", showarrow=False, xanchor="left")
    figure.add_annotation(
        x=end / 60.0, y=-0.85, text=f"end of film, {clock(end)}", showarrow=False, xanchor="right"
    )
    figure.update_layout(
        height=190,
        margin=dict(l=10, r=10, t=20, b=10),
        showlegend=False,
        xaxis_title="film time (min)",
    )
    figure.update_yaxes(visible=False, range=[-1.05, 0.8])
    figure.update_xaxes(range=[-end / 60.0 * 0.02, end / 60.0 * 1.02])
    return figure


def evidence_captions(evidence: pd.DataFrame) -> list[str]:
    """A caption per evidence row for its frame: "54:46 · claims 1–5" ("▲ anchor" for it)."""
    return [
        f"{clock(t)} · " + ("▲ anchor" if anchor and not len(c) else claim_range(c))
        for t, c, anchor in zip(evidence["time_s"], evidence["claim_ords"], evidence["is_anchor"])
    ]


def evidence_lines(evidence: pd.DataFrame) -> list[str]:
    """ "evidence in the film" lines: "54:46 The Winning Ticket (claims 1–5)"."""
    cited = evidence[evidence["claim_ords"].map(len) > 0]
    return [
        f"{clock(t)} {loc or ''} ({claim_range(c)})"
        for t, loc, c in zip(cited["time_s"], cited["location"], cited["claim_ords"])
    ]


def checks_in_words(passed: pd.Series) -> list[str]:
    """Each question's latest check outcome (True, False, or missing: no check run saw it)."""
    return [
        "not checked" if pd.isna(value) else "passed" if value else "failed"
        for value in passed.astype(object)
    ]
