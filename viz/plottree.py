"""Figures of the PlotTree page (StoryVideoQA §5): the tree as an icicle or sunburst, and a
level-by-time view where each node is a bar over the film time it summarises.

A real film's tree has hundreds of nodes (Chinatown: 80 with scene leaves, 8,056 with 1-s
leaves), more than either Plotly or a reader can take at once. So the page shows one node's
neighbourhood: the node, its ancestors' path, and its descendants down a few levels
(`view_nodes`, capped at `MAX_VIEW_NODES`), labelled by time span and the first words of the
summary (`node_labels`, vectorised: no Python loop per node).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from viz.safe import escapes_untrusted

HIGHLIGHT = "#d62728"
BASE_COLOUR = "#6baed6"
# What one figure draws; drill down for more. At 240, Chinatown's top view drew its 6 acts and
# 217 scene-group slivers a pixel or two tall (unlabelled, unreadable), and a sidebar switch to
# PlotTree took 1.69 s; at 60 the view stops at the acts (each labelled), and the switch took
# 0.96 s and the first render 1.92 s instead of 2.50 s (median of 5, headless Chromium).
MAX_VIEW_NODES = 60
DEFAULT_DEPTH = 2  # levels below the chosen node drawn by default
ROOT_COLOUR = "#5f7f9f"  # the chosen node, drawn as the top box (dark enough for a white label)
LABEL_WORDS = 7
# A box under this share of the top node's leaves is a few pixels tall in a 420 px figure: it
# gets no label (its hover still has it). Plotly measures every label it draws to fit it (a
# forced layout each), which cost ~0.5 s of the browser's time for a 224-node view.
MIN_LABEL_SHARE = 1 / 40


def _clock(seconds: pd.Series) -> pd.Series:
    """h:mm:ss / m:ss for a whole column at once ("—" where unknown)."""
    known = seconds.notna()
    total = seconds.fillna(0).round().astype(np.int64)
    hours, mins, secs = total // 3600, total % 3600 // 60, total % 60
    with_hours = hours.astype(str) + ":" + mins.astype(str).str.zfill(2)
    short = np.where(hours > 0, with_hours, mins.astype(str))
    text = pd.Series(short, index=seconds.index) + ":" + secs.astype(str).str.zfill(2)
    return text.where(known, "—")


def first_words(text: pd.Series, words: int = LABEL_WORDS) -> pd.Series:
    """The first `words` words of each text, with "…" when cut (vectorised)."""
    flat = text.fillna("").astype(str).str.replace(r"\s+", " ", regex=True).str.strip()
    head = flat.str.extract(rf"^((?:\S+\s+){{0,{words - 1}}}\S+)", expand=False).fillna("")
    return head.where(head.str.len() >= flat.str.len(), head + " …")


def node_labels(nodes: pd.DataFrame) -> pd.Series:
    """ "0:05:00–0:12:30 · The first words of the summary …" per node, indexed like `nodes`."""
    span = _clock(nodes["start_s"]) + "–" + _clock(nodes["end_s"])
    return span + " · " + first_words(nodes["summary"])


def with_labels(nodes: pd.DataFrame) -> pd.DataFrame:
    """`nodes` (start_s, end_s, summary) with their `label` column (see `node_labels`)."""
    return nodes.assign(label=node_labels(nodes).to_numpy())


def children_map(nodes: pd.DataFrame) -> dict[str, list[str]]:
    """parent_id -> child node ids in time order (one pass over the table)."""
    ordered = nodes.sort_values(["start_s", "node_id"], kind="stable")
    grouped = ordered.dropna(subset=["parent_id"]).groupby("parent_id", sort=False)["node_id"]
    return {parent: list(ids) for parent, ids in grouped}


def ancestors(nodes: pd.DataFrame, node_id: str) -> list[str]:
    """Root-first path to `node_id` (inclusive)."""
    return path_to(dict(zip(nodes["node_id"], nodes["parent_id"])), node_id)


def path_to(parent_of: dict[str, str | None], node_id: str) -> list[str]:
    """Root-first path to `node_id` (inclusive), from a node -> parent map."""
    path = [node_id]
    while isinstance(parent_of.get(path[-1]), str) and parent_of[path[-1]] in parent_of:
        path.append(parent_of[path[-1]])
        if len(path) > len(parent_of):  # a cycle in bad data: stop rather than loop
            break
    return path[::-1]


def view_nodes(
    nodes: pd.DataFrame,
    node_id: str,
    depth: int = DEFAULT_DEPTH,
    max_nodes: int = MAX_VIEW_NODES,
    children: dict[str, list[str]] | None = None,
) -> tuple[pd.DataFrame, bool]:
    """The chosen node and its descendants down `depth` levels, whole levels at a time, at most
    `max_nodes`: a level that would pass the cap is left out (and only the first `max_nodes` of
    the children are kept when even they pass it), so a view never shows half a level. Returns
    the rows and whether the cap cut the view short."""
    children = children if children is not None else children_map(nodes)
    picked, frontier, cut = [node_id], [node_id], False
    for level in range(depth):
        below = [c for parent in frontier for c in children.get(parent, [])]
        if not below:
            break
        if len(picked) + len(below) > max_nodes:
            cut = True
            if level == 0:
                picked += below[: max(0, max_nodes - 1)]
            break
        picked += below
        frontier = below
    rows = nodes.set_index("node_id").loc[picked].reset_index()
    return rows, cut


def _colours(nodes: pd.DataFrame, scores: dict[str, float] | None) -> list[str | None]:
    if not scores:
        return [None] * len(nodes)
    return [HIGHLIGHT if node in scores else "#c6dbef" for node in nodes["node_id"]]


def _hover(nodes: pd.DataFrame, labels: pd.Series, scores: dict[str, float] | None) -> list[str]:
    summary = nodes["summary"].fillna("").astype(str).str.slice(0, 240)
    score = [
        f"<br>retrieval score {scores[n]:.3f}" if scores and n in scores else ""
        for n in nodes["node_id"]
    ]
    lines = labels + "<br>level " + nodes["level"].astype(str) + "<br>" + summary
    return list(lines + pd.Series(score, index=nodes.index))


@escapes_untrusted
def tree_figure(
    nodes: pd.DataFrame,
    style: str = "icicle",
    scores: dict[str, float] | None = None,
    labels: pd.Series | None = None,
) -> go.Figure:
    """The hierarchy of the rows given (a `view_nodes` neighbourhood): one box per node sized by
    its leaves, labelled by time span and first words; retrieved nodes in red.

    Args:
        nodes: rows of `plottree_view.tree_nodes` (their first row is drawn as the top).
        style: "icicle" or "sunburst".
        scores: node_id -> retrieval score of the top-M nodes to highlight.
        labels: `node_labels` of these rows (computed when not given).
    """
    labels = labels if labels is not None else node_labels(nodes)
    known = set(nodes["node_id"])
    parents = [p if isinstance(p, str) and p in known else "" for p in nodes["parent_id"]]
    leaves = [max(1, int(v)) for v in nodes["leaves"]]
    trace = dict(
        ids=list(nodes["node_id"]),
        labels=list(labels),
        texttemplate=["%{label}" if v >= MIN_LABEL_SHARE * leaves[0] else "" for v in leaves],
        parents=parents,
        values=leaves,
        branchvalues="total",
        hovertext=_hover(nodes, labels, scores),
        hoverinfo="text",
        maxdepth=DEFAULT_DEPTH + 1,
        # Plotly orders siblings largest first by default; a film's parts belong in time order
        # (`children_map` gives them so), or a 50:18 scene is drawn before the 0:40 one
        sort=False,
        # Plotly draws the top box transparent by default, which left half an icicle blank and
        # the chosen node's own label invisible on a white page
        root_color=ROOT_COLOUR,
    )
    if scores:
        # without a retrieval, Plotly's own level colours; with one, the top-M nodes in red
        trace["marker"] = dict(colors=_colours(nodes, scores))
    figure = go.Figure(go.Sunburst(**trace) if style == "sunburst" else go.Icicle(**trace))
    figure.update_layout(height=420, margin=dict(l=10, r=10, t=10, b=10))
    return figure


@escapes_untrusted
def level_time_figure(
    nodes: pd.DataFrame,
    scores: dict[str, float] | None = None,
    selected: str | None = None,
    labels: pd.Series | None = None,
    hits: pd.DataFrame | None = None,
) -> go.Figure:
    """Each node as a bar over [start, end] (minutes) on the row of its level (root on top);
    retrieval hits anywhere in the tree as red ticks on the time axis.

    Args:
        nodes: the rows to draw as bars (a `view_nodes` neighbourhood).
        scores: node_id -> retrieval score; hit bars in this view are red.
        selected: the chosen node, outlined.
        labels: `node_labels` of these rows.
        hits: rows (node_id, level, start_s, end_s) of every retrieved node, drawn on the axis
            even when outside this view.
    """
    labels = labels if labels is not None else node_labels(nodes)
    figure = go.Figure()
    timed = nodes.assign(colour=_colours(nodes, scores), label=labels)
    timed = timed.dropna(subset=["start_s", "end_s"])
    figure.add_bar(
        orientation="h",
        y=[f"level {lvl}" for lvl in timed["level"]],
        base=timed["start_s"] / 60.0,
        x=(timed["end_s"] - timed["start_s"]) / 60.0,
        text=list(timed["node_id"]),
        textposition="none",
        marker=dict(
            color=[c or BASE_COLOUR for c in timed["colour"]],
            line=dict(width=[3 if n == selected else 0.5 for n in timed["node_id"]], color="black"),
        ),
        customdata=timed[["node_id", "label"]].to_numpy(),
        hovertemplate="%{customdata[1]}<extra>%{customdata[0]}</extra>",
        name="nodes",
    )
    if hits is not None and not hits.empty:
        figure.add_scatter(
            name="retrieval hits",
            mode="markers",
            x=(hits["start_s"] + hits["end_s"]) / 120.0,
            y=[f"level {lvl}" for lvl in hits["level"]],
            marker=dict(symbol="line-ns-open", size=18, line=dict(width=3, color=HIGHLIGHT)),
            customdata=hits[["node_id"]].to_numpy(),
            hovertemplate="hit %{customdata[0]}<extra></extra>",
        )
    levels = sorted(set(nodes["level"]) | set(hits["level"] if hits is not None else []))
    figure.update_yaxes(categoryorder="array", categoryarray=[f"level {lvl}" for lvl in levels])
    figure.update_layout(
        height=120 + 50 * len(levels),
        margin=dict(l=10, r=10, t=10, b=10),
        xaxis_title="film time (min)",
        showlegend=False,
        barmode="overlay",
        clickmode="event+select",
    )
    return figure


def tree_shape(skeleton: pd.DataFrame) -> dict[str, dict]:
    """Children (in time order), parent and level of every node, computed once per tree (the
    page caches it): navigating a node's path and children is then dictionary lookups."""
    return {
        "children": children_map(skeleton),
        "parent": dict(zip(skeleton["node_id"], skeleton["parent_id"])),
        "level": dict(zip(skeleton["node_id"], skeleton["level"].astype(int))),
    }
