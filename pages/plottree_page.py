"""PlotTree: browse a film's plot tree (icicle or sunburst, and level by time), read a node, and
preview retrieval: type a question, see the top-M nodes with scores and the context sent."""

import streamlit as st

from data_access import views_plottree
from pages.common import query
from pages.downloads import download_buttons
from pages.filters import minutes, url_radio, url_selectbox, url_text
from viz.plottree import level_time_figure, tree_figure

st.title("PlotTree")
films = query(views_plottree.films_with_tree)
if films.empty:
    st.info(
        "No PlotTree in this store. Build one with the PlotTree pipeline (or `storyscope demo`)."
    )
    st.stop()

titles = dict(zip(films["film_id"], films["title"].fillna(films["film_id"])))
film_id = url_selectbox("Film", list(films["film_id"]), key="film", format_func=titles.get)
nodes = query(views_plottree.tree_nodes, film_id)
levels = sorted(nodes["level"].unique())
cols = st.columns(3)
cols[0].metric("Nodes", len(nodes))
cols[1].metric("Leaves", int((nodes["level"] == 0).sum()))
cols[2].metric("Levels", len(levels))

question = url_text(
    "Retrieval preview: type a question",
    key="ask",
    placeholder="e.g. Why does Ann stop trusting Ben?",
)
top_m = int(url_selectbox("Top-M nodes", ["1", "2", "3", "5", "8"], key="m", default="3"))
scores, preview = None, None
if question:
    from pipelines.embeddings import MODEL_NAME
    from pipelines.plottree_preview import retrieve

    with st.spinner("Scoring nodes…"):
        stored = query(views_plottree.node_embeddings, film_id, MODEL_NAME)
        preview = retrieve(question, nodes, top_m, stored)
    scores = dict(zip(preview.nodes["node_id"], preview.nodes["score"]))

style = url_radio("Tree view", ["icicle", "sunburst"], key="view")
st.plotly_chart(tree_figure(nodes, style, scores), key="tree")
download_buttons(nodes, f"plottree_{film_id}", key="plottree")
node_id = url_selectbox(
    "Node",
    list(nodes["node_id"]),
    key="node",
    format_func=lambda n: f"{n} · level {int(nodes.set_index('node_id').loc[n, 'level'])}",
)
st.plotly_chart(level_time_figure(nodes, scores, node_id), key="level_time")

node = nodes.set_index("node_id").loc[node_id]
st.subheader(f"Node {node_id}")
st.markdown(
    f"level {int(node['level'])} · {minutes(node['start_s'])}–{minutes(node['end_s'])} · "
    f"{int(node['leaves'])} leaves · characters: {node['characters'] or '—'} · "
    f"summary by `{node['summary_backend'] or 'unknown'}`"
)
st.markdown(node["summary"] or "_no summary_")
if node["children"]:
    st.caption(f"children: {node['children']}")

if preview is not None:
    st.subheader("Retrieval preview")
    st.caption(
        f"backend: **{preview.backend}** ({preview.model} cosine; the paper uses a Qwen3 embedding)"
        f" · top-{top_m} nodes, sorted chronologically as in StoryVideoQA §5.2"
    )
    st.dataframe(
        preview.nodes.round({"score": 3}), hide_index=True, width="stretch", key="retrieved"
    )
    st.text_area(
        "Context that would be sent", preview.context, height=160, disabled=True, key="context"
    )
