"""PlotTree: browse a film's plot tree top-down (a node, its path from the root, its children),
read a node, and preview retrieval: type a question, see the top-M nodes with scores and the
exact prompt `storyscope plottree ask` would send (the same retrieval code, StoryVideoQA §5.2)."""

import html

import streamlit as st

from data_access.queries import plottree_view
from data_access.tables import plottree_records
from ui.common import chart, derived, query
from ui.downloads import download_buttons
from ui.filters import minutes, url_radio, url_selectbox, url_text
from ui.safe_text import inert, plain, show_text
from viz.plottree import (
    DEFAULT_DEPTH,
    MAX_VIEW_NODES,
    level_time_figure,
    node_labels,
    path_to,
    tree_figure,
    tree_shape,
    view_nodes,
    with_labels,
)

st.title("PlotTree")
films = query(plottree_view.films_with_tree)
if films.empty:
    st.info(
        "No PlotTree in this store. Build one with the PlotTree pipeline (or `storyscope demo`)."
    )
    st.stop()

titles = dict(zip(films["film_id"], films["title"].fillna(films["film_id"]).map(plain)))
film_id = url_selectbox("Film", list(films["film_id"]), key="film", format_func=titles.get)
# the tree's shape only (no texts), and its navigation maps computed once per tree: a feature
# film has a few hundred nodes with scene leaves and ~8,000 with 1-s leaves, so nothing below
# loops over all of them on a rerun
nodes = query(plottree_view.tree_skeleton, film_id)
shape = derived(tree_shape, plottree_view.tree_skeleton, film_id)
children, level_of = shape["children"], shape["level"]
cols = st.columns(3)
cols[0].metric("Nodes", len(nodes))
cols[1].metric("Leaves", int((nodes["level"] == 0).sum()))
cols[2].metric("Levels", nodes["level"].nunique())


def _with_texts(rows):
    """`rows` of the skeleton with their summary, backend and characters, and a label each."""
    # labelled once per node set and store version: pandas string work costs ~0.1 s a call
    texts = derived(with_labels, plottree_view.node_texts, film_id, tuple(sorted(rows["node_id"])))
    return rows.merge(texts.drop(columns=["start_s", "end_s"]), on="node_id", how="left")


def _first_names(names, shown: int = 12) -> str:
    """The first `shown` of a comma-joined name list, and how many more (a root node of a film
    lists every speaker of the screenplay)."""
    parts = [n for n in (names or "").split(", ") if n]
    more = f" and {len(parts) - shown} more" if len(parts) > shown else ""
    return ", ".join(parts[:shown]) + more


def _retrieve(question: str, top_m: int):
    """The pipeline's own retrieval over the stored node vectors (pipelines.plottree)."""
    from pipelines.embeddings import MODEL_NAME, embed_texts
    from pipelines.plottree.retrieval import TreeIndex, retrieve

    tree, vectors = query(plottree_records.current_tree, film_id, MODEL_NAME)
    if tree.empty:
        return None
    return retrieve(TreeIndex(tree, vectors), embed_texts([question])[0], top_m)


search = st.columns([3, 1])
question = url_text(
    "Retrieval preview: type a question",
    key="ask",
    placeholder="e.g. Why does Ann stop trusting Ben?",
    container=search[0],
)
top_m = int(
    url_selectbox(
        "Top-M nodes",
        ["1", "2", "3", "5", "8", "16", "32"],
        key="m",
        default="8",
        container=search[1],
    )
)
retrieval, scores = None, None
if question:
    with st.spinner("Embedding the question and scoring every node…"):
        retrieval = _retrieve(question, top_m)
    if retrieval is None:
        st.warning(
            "This tree has no stored node vectors, so retrieval cannot run (rebuild it with "
            f"`storyscope plottree build --film {film_id}`)."
        )
    else:
        scores = dict(zip(retrieval.nodes["node_id"], retrieval.nodes["score"]))


def _pick_from_chart(chart_key: str) -> None:
    """A click on a bar of the level-time view opens that node (before the picker is drawn)."""
    event = st.session_state.get(chart_key)
    points = (event or {}).get("selection", {}).get("points", [])
    # figures escape their text (viz.safe), customdata included: back to the node's own id
    clicked = [html.unescape(str(p["customdata"][0])) for p in points if p.get("customdata")]
    marker = (chart_key, tuple(clicked))
    if clicked and clicked[0] in level_of and st.session_state.get("_handled_click") != marker:
        st.session_state["_handled_click"] = marker
        st.session_state["node"] = clicked[0]


_pick_from_chart("level_time")
root = str(nodes["node_id"].iloc[0])  # the skeleton orders the top level first


def _node_from_link(value: str | None) -> str | None:
    """The node a link names: its id (the app's own and older links) or the label the bound
    picker writes ("[↳ ]L<level> · <start>–<end> · <summary> …"), found by level and span."""
    if not value or value in level_of:
        return value if value in level_of else None
    head = value.removeprefix("↳ ").split(" · ")
    if len(head) < 2:
        return None
    spans = node_labels(nodes.assign(summary="")).str.split(" · ").str[0]
    tags = "L" + nodes["node_id"].map(level_of).astype(str) + " · " + spans
    named = nodes["node_id"][tags == f"{head[0]} · {head[1]}"]
    return str(named.iloc[0]) if len(named) == 1 else None


wanted = st.session_state.get("node") or _node_from_link(st.query_params.get("node")) or root
current = wanted if wanted in level_of else root
path = path_to(shape["parent"], current)
# the picker lists only the way up (path) and the way down (children): a handful of options,
# never all the nodes of a feature film
choices = path + children.get(current, [])
choice_rows = _with_texts(nodes[nodes["node_id"].isin(choices)])
choice_labels = dict(zip(choice_rows["node_id"], choice_rows["label"]))
node_id = url_selectbox(
    "Node (up the path or down to a child)",
    choices,
    key="node",
    default=current,
    format_func=lambda n: (
        ("↳ " if n not in path else "") + f"L{level_of[n]} · {plain(choice_labels.get(n, n))}"
    ),
)

finder = st.text_input("Find a node by words in its summary", key="find")
if finder:
    found = query(plottree_view.find_nodes, film_id, finder)
    total = int(found["matches"].iloc[0]) if not found.empty else 0
    st.caption(f"{total} nodes mention “{plain(finder)}”; the first {len(found)} by time:")
    st.dataframe(
        found.assign(label=node_labels(found).to_numpy())[["node_id", "level", "label"]],
        hide_index=True,
        width="stretch",
        key="found",
    )

depth = st.slider("Levels shown below the node", 1, 4, DEFAULT_DEPTH, key="depth")
view, cut = view_nodes(nodes, node_id, depth, MAX_VIEW_NODES, children)
view = _with_texts(view)
if cut:
    st.caption(
        f"Deeper levels would pass {MAX_VIEW_NODES} nodes in one figure: pick a child to drill "
        "down."
    )
style = url_radio("Tree view", ["icicle", "sunburst"], key="view")
chart(tree_figure, view, style, scores, view["label"], key="tree")
download_buttons(view, f"plottree_{film_id}", key="plottree")
hits = None
if retrieval is not None:
    hits = retrieval.nodes[["node_id", "level", "start_s", "end_s"]]
chart(
    level_time_figure,
    view,
    scores,
    node_id,
    view["label"],
    hits,
    key="level_time",
    on_select="rerun",
)

node = view.set_index("node_id").loc[node_id]
st.subheader(f"Level {int(node['level'])} · {minutes(node['start_s'])}–{minutes(node['end_s'])}")
st.markdown(
    f"{inert(node_id)} · {int(node['leaves'])} leaves · characters: "
    f"{inert(_first_names(node['characters'])) or '—'} · summary by "
    f"**{inert(node['summary_backend'] or 'unknown')}**"
)
show_text(node["summary"] if isinstance(node["summary"], str) else "(no summary)")
below = children.get(node_id, [])
if below:
    st.markdown(f"**Children** ({len(below)}, in time order; pick one above to open it)")
    shown_children = _with_texts(nodes[nodes["node_id"].isin(below)]).set_index("node_id")
    st.dataframe(shown_children.loc[below, ["level", "label"]], width="stretch", key="children")

if retrieval is not None:
    from pipelines.plottree.retrieval import qa_messages

    st.subheader("Retrieval preview")
    st.caption(
        f"backend: **minilm-cosine** (MiniLM cosine on the stored node vectors; the paper uses a "
        f"Qwen3 embedding) · top-{top_m} nodes, sorted chronologically as in StoryVideoQA §5.2 · "
        "the same code as `storyscope plottree ask`"
    )
    shown = retrieval.nodes.assign(label=node_labels(retrieval.nodes).to_numpy())
    st.dataframe(
        shown[["node_id", "level", "label", "score", "summary"]].round({"score": 3}),
        hide_index=True,
        width="stretch",
        key="retrieved",
    )
    st.text_area(
        "Prompt that would be sent (system, then user message)",
        "\n\n".join(m["content"] for m in qa_messages(retrieval.context, question, None)),
        height=220,
        disabled=True,
        key="context",
    )
