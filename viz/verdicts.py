"""Figures and tables of the Verdicts page. Colours are the paper's (App. H.2): asserted blue,
contradicted red, omitted grey."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from data_access.formats.question_types import ALL_TYPES
from viz.safe import escapes_untrusted, shorten, wrapped

VERDICT_COLOURS = {
    "asserted": "#1f77b4",
    "contradicted": "#d62728",
    "omitted": "#bdbdbd",
    "partial": "#9ecae1",
    "unverifiable": "#fdd0a2",
    None: "#ffffff",
}
VERDICT_ORDER = ["asserted", "contradicted", "omitted", "partial", "unverifiable"]
# Resp: share of answers asserting at least one claim (pipelines/metrics/eq1.py), shown next to
# Prec because by default an answer asserting nothing has no precision.
METRIC_LABELS = {
    "recall": "Rec",
    "precision": "Prec",
    "f1": "F1",
    "contradiction": "Contra",
    "responding": "Resp",
}


COLUMN_TITLE_CHARS = 24


# a row's claim text beside its number, as rubric views print it; the whole claim is in the hover
ROW_CLAIM_CHARS = 48


def _short(setting: str, number: int) -> str:
    """A setting's column title: its number and name cut to COLUMN_TITLE_CHARS."""
    return shorten(f"{number}. {setting}", COLUMN_TITLE_CHARS + len(f"{number}. "))


def claim_row_label(ord_: int, role: str, claim: object) -> str:
    """ "■ 3 · Ann learns the key is gone" (■ core, □ context), the claim cut to ROW_CLAIM_CHARS."""
    text = shorten(" ".join(str(claim).split()), ROW_CLAIM_CHARS) if isinstance(claim, str) else ""
    return f"{'■' if role == 'core' else '□'} {ord_} · {text}".rstrip(" ·")


@escapes_untrusted
def verdict_grid_figure(grid: pd.DataFrame, core_labels: dict[str, str] | None = None) -> go.Figure:
    """Claims × settings, each cell coloured by verdict; rows marked ■ core / □ context and
    labelled with the claim's text (cut short; the whole claim is in each cell's hover).

    Args:
        grid: rows of `verdicts_view.verdict_grid` (ord, role, claim, setting, verdict).
        core_labels: setting -> "k/n core", shown under each column title.
    """
    core_labels = core_labels or {}
    settings = sorted(grid["setting"].unique())
    claims = grid.drop_duplicates("ord").sort_values("ord")
    rows = [
        claim_row_label(o, r, c) for o, r, c in zip(claims["ord"], claims["role"], claims["claim"])
    ]
    # short column titles: full setting names ("Captions + subtitles, surface events · <model>")
    # tilted the axis and squeezed the grid into a strip; the full name is in the hover
    columns = [
        f"{_short(s, i)}<br>{core_labels.get(s, '')}" for i, s in enumerate(settings, start=1)
    ]
    column_of = dict(zip(settings, columns))
    row_of = dict(zip(claims["ord"], rows))
    figure = go.Figure()
    for verdict in [*VERDICT_ORDER, None]:
        cells = (
            grid[grid["verdict"].isna()] if verdict is None else grid[grid["verdict"] == verdict]
        )
        if cells.empty:
            continue
        figure.add_scatter(
            name=verdict or "not judged",
            mode="markers",
            x=cells["setting"].map(column_of).tolist(),
            y=cells["ord"].map(row_of).tolist(),
            marker=dict(
                symbol="square",
                size=34,
                color=VERDICT_COLOURS[verdict],
                line=dict(width=1, color="#666"),
            ),
            customdata=np.column_stack(
                [
                    cells["claim"].astype(str).map(wrapped),
                    cells["setting"].astype(str),
                    _reasons(cells),
                ]
            ),
            hovertemplate="%{customdata[0]}<br><b>%{customdata[1]}</b>%{customdata[2]}<extra>"
            + (verdict or "not judged")
            + "</extra>",
        )
    figure.update_layout(
        height=120 + 44 * len(rows),
        margin=dict(l=10, r=10, t=30, b=10),
        legend_title_text="verdict",
    )
    figure.update_xaxes(categoryorder="array", categoryarray=columns, side="top")
    figure.update_yaxes(categoryorder="array", categoryarray=rows[::-1])
    return figure


def _reasons(cells: pd.DataFrame) -> list[str]:
    """The judge's stored rationale per cell as a hover line ("" when none was stored)."""
    if "rationale" not in cells:
        return [""] * len(cells)
    return [
        f"<br><i>why:</i> {wrapped(r)}" if isinstance(r, str) and r else ""
        for r in cells["rationale"]
    ]


# what a cell without brackets means, said once beside the tables
ZERO_WIDTH_NOTE = (
    "No interval where it would have no width: (n=1) one question, nothing to resample;"
    " (all equal) every question scores the same, so every resample does too."
)


def interval_cell(value: float, low: float, high: float, n: int | None = None) -> str:
    """A mean in percent with its 95% interval, for a table cell. An interval of no width says
    why instead of printing "[50.0, 50.0]" (ZERO_WIDTH_NOTE): one question (`n`=1) has nothing
    to resample, and questions that all score the same resample to that score every time.

    Args:
        value, low, high: the mean and the interval's ends, 0-1 (NaN: none).
        n: the questions behind the mean (None: not known).
    """
    if pd.isna(value):
        return "—"  # no mean: e.g. precision where every answer declined to commit
    mean = f"{100 * value:.1f}"
    if pd.isna(low) or pd.isna(high):
        return mean
    if low == high:
        if n == 1:
            return f"{mean} (n=1)"
        return f"{mean} (all equal)"
    if f"{100 * low:.1f}" == f"{100 * high:.1f}":
        return f"{mean} (interval < 0.1)"
    return f"{mean} [{100 * low:.1f}, {100 * high:.1f}]"


def metrics_table(
    metrics: pd.DataFrame, reported: pd.DataFrame | None = None, order_by: str = "f1"
) -> pd.DataFrame:
    """Table 3 layout: one row per setting, Rec / Prec / F1 / Contra in percent with 95% CIs,
    and the paper's reported figure beside ours where one exists.

    Args:
        metrics: `verdict_metrics.metrics_by(..., ["setting_id", "setting"])`.
        reported: reported_results rows with qtype NULL (setting_id, metric, value).
        order_by: metric to sort by (descending, except contradiction ascending).
    """
    ascending = order_by == "contradiction"
    ordered = metrics.sort_values(order_by, ascending=ascending)
    table = pd.DataFrame({"setting": ordered["setting"], "questions": ordered["questions"]})
    for metric, label in METRIC_LABELS.items():
        if metric not in ordered:
            continue
        table[label] = [
            interval_cell(v, lo, hi, n)
            for v, lo, hi, n in zip(
                ordered[metric],
                ordered[f"{metric}_lo"],
                ordered[f"{metric}_hi"],
                ordered["questions"],
            )
        ]
        if reported is not None and not reported.empty:
            paper = reported[(reported["metric"] == metric) & reported["qtype"].isna()]
            by_setting = dict(zip(paper["setting_id"], paper["value"]))
            if by_setting:
                table[f"{label} (paper)"] = [
                    f"{100 * by_setting[s]:.1f}" if s in by_setting else ""
                    for s in ordered["setting_id"]
                ]
    return table.reset_index(drop=True)


def type_table(metrics: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    """Table 4 layout: settings × question types, cells "F1 [lo, hi]" in percent."""
    metrics = metrics.assign(
        cell=[
            interval_cell(v, lo, hi, n)
            for v, lo, hi, n in zip(
                metrics[metric],
                metrics[f"{metric}_lo"],
                metrics[f"{metric}_hi"],
                metrics["questions"],
            )
        ]
    )
    table = metrics.pivot(index="setting", columns="qtype", values="cell").fillna("—")
    order = [t for t in ALL_TYPES if t in table]
    return table[order + [c for c in table.columns if c not in order]].reset_index()


@escapes_untrusted
def metrics_figure(
    metrics: pd.DataFrame,
    metric: str = "f1",
    reported: pd.DataFrame | None = None,
    limit: int | None = None,
) -> go.Figure:
    """Bars of one metric per setting with 95% intervals; the paper's figures as diamonds.
    `limit`: draw only the best `limit` settings by the metric (None: all)."""
    ordered = metrics.sort_values(metric, ascending=metric == "contradiction").head(limit)
    # numbered short ticks: full setting names tilted the axis and squeezed the bars to a strip
    # (the full name is in the hover; the number keeps two names with one prefix apart)
    ticks = [_short(name, i) for i, name in enumerate(ordered["setting"], start=1)]
    figure = go.Figure()
    figure.add_bar(
        name="ours",
        x=ticks,
        y=100 * ordered[metric],
        customdata=ordered["setting"],
        hovertemplate="%{customdata}: %{y:.1f}<extra>ours</extra>",
        error_y=dict(
            type="data",
            symmetric=False,
            array=(100 * (ordered[f"{metric}_hi"] - ordered[metric])).fillna(0),
            arrayminus=(100 * (ordered[metric] - ordered[f"{metric}_lo"])).fillna(0),
        ),
        marker_color="#1f77b4",
    )
    if reported is not None and not reported.empty:
        paper = reported[(reported["metric"] == metric) & reported["qtype"].isna()]
        paper = paper[paper["setting_id"].isin(ordered["setting_id"])]
        if not paper.empty:
            names = dict(zip(ordered["setting_id"], ticks))
            figure.add_scatter(
                name="paper (reported)",
                mode="markers",
                x=[names[s] for s in paper["setting_id"]],
                y=100 * paper["value"],
                marker=dict(symbol="diamond", size=12, color="#ff7f0e"),
            )
    figure.update_layout(
        height=320,
        margin=dict(l=10, r=10, t=30, b=10),
        yaxis_title=f"{METRIC_LABELS[metric]} (%)",
        barmode="group",
    )
    return figure


def answer_markdown(text: str, verdicts: pd.DataFrame, escape: Callable[[str], str] = str) -> str:
    """An answer with its per-claim verdict chips above it (as in App. H.2).

    Args:
        text: the model's answer (untrusted).
        verdicts: ord, role, verdict per claim.
        escape: makes the answer inert markdown (the page passes `ui.safe_text.inert`);
            the chips are ours and stay markdown.
    """
    chips = " ".join(
        f":{'blue' if v == 'asserted' else 'red' if v == 'contradicted' else 'gray'}-background"
        f"[{'■' if r == 'core' else '□'}{o} {'not judged' if pd.isna(v) else v}]"
        for o, r, v in zip(verdicts["ord"], verdicts["role"], verdicts["verdict"])
    )
    return f"{chips}\n\n{escape(text)}"
