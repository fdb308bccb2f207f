"""Belief timelines: per-character lanes in the style of the LF-VideoQA paper's Figures 1–4."""

import streamlit as st

from data_access import views_beliefs
from pages.common import query
from pages.filters import url_film, url_multiselect, url_range, url_selectbox
from pages.gold_note import gold_eval_caption
from viz.beliefs import belief_lanes_figure, describe_belief

MAX_ROWS = 60
st.title("Belief timelines")
st.caption(
    "Each box runs from when a belief forms to when it is revised. Dashed red: false belief; "
    "grey: a claim the character rejects; arrows: revisions; ● witnessed ■ told ▲ inferred; "
    "★ meta-beliefs (what X thinks Y believes)."
)

film_id = url_film(
    "Film or story",
    "beliefs",
    "No films in this store. Build the demo store with `storyscope demo`.",
)

holders = query(views_beliefs.belief_holders, film_id)
if holders.empty:
    st.info("No belief records for this film yet (run belief tracking).")
    st.stop()
gold_eval_caption("beliefs")
chosen = url_multiselect(
    "Characters (pick two to compare a knowledge split)",
    list(holders["holder"]),
    key="who",
    default=list(holders["holder"][:2]),
    max_selections=4,
)
if not chosen:
    st.caption("Pick at least one character.")
    st.stop()

lanes = query(views_beliefs.belief_lanes, film_id, tuple(chosen))
meta = query(views_beliefs.meta_belief_lane, film_id, tuple(chosen))
if len(lanes) + len(meta) > MAX_ROWS:
    # a screenplay film holds hundreds of beliefs per character: show the beliefs that form or
    # are revised in a window of scenes (a belief held from earlier would flood every window)
    scenes = sorted(set(lanes["scene_index"]) | set(meta["scene_index"]))
    window = url_range(
        "Beliefs formed or revised in scenes",
        scenes,
        key="scenes",
        default=(scenes[0], scenes[min(len(scenes) - 1, 9)]),
    )
    lanes = lanes[
        lanes["scene_index"].between(*window) | lanes["revised_at_scene"].between(*window)
    ]
    meta = meta[meta["scene_index"].between(*window)]
    if len(lanes) > MAX_ROWS:
        st.caption(f"{len(lanes)} beliefs in this window; the first {MAX_ROWS} are drawn.")
        lanes = lanes.head(MAX_ROWS)


def _describe(label: str) -> str:
    row = lanes.iloc[labels.index(label)]
    return f"{label} — {row['content']}"


# "holder · id"; beliefs merged from runs over different scenes can repeat an id: add the scene
named = list(zip(lanes["holder"], lanes["belief_id"]))
labels = [
    f"{h} · {b}" + (f" · scene {s}" if named.count((h, b)) > 1 else "")
    for (h, b), s in zip(named, lanes["scene_index"])
]
picked = url_selectbox("Belief", labels, key="belief", format_func=_describe) if labels else None

st.plotly_chart(belief_lanes_figure(lanes, meta, picked), key="belief_lanes")

summary = st.columns(4)
summary[0].metric("Beliefs", len(lanes))
summary[1].metric("False", int(lanes["is_false"].sum()))
summary[2].metric("Revisions", int(lanes["revises"].notna().sum()))
summary[3].metric("Meta-beliefs", len(meta))

if picked:
    row = lanes.iloc[labels.index(picked)]
    holder, belief_id, scene_index = row["holder"], row["belief_id"], int(row["scene_index"])
    st.subheader(f"{holder}: {belief_id}")
    st.markdown(describe_belief(row))
    left, right = st.columns(2)
    with left:
        st.markdown("**Basis events**")
        st.dataframe(
            query(views_beliefs.belief_basis, film_id, holder, belief_id, scene_index),
            hide_index=True,
            width="stretch",
        )
    with right:
        st.markdown("**Questions citing these scenes**")
        st.dataframe(
            query(views_beliefs.questions_citing_belief, film_id, holder, belief_id, scene_index),
            hide_index=True,
            width="stretch",
        )

if not meta.empty:
    st.subheader("Meta-beliefs")
    st.dataframe(
        meta[
            [
                "holder",
                "meta_id",
                "about",
                "scene_index",
                "claim",
                "type",
                "change",
                "source",
                "order_depth",
            ]
        ],
        hide_index=True,
        width="stretch",
    )
