"""Belief timelines: per-character lanes in the style of the LF-VideoQA paper's Figures 1–4."""

from urllib.parse import quote

import pandas as pd
import streamlit as st

from data_access.queries import beliefs_view, film_view
from data_access.queries.belief_sources import belief_sources
from pipelines.beliefs.backend_notes import OWN_WORDS
from pipelines.beliefs.character_summary import (
    GROUPINGS,
    arcs_first,
    belief_groups,
    changes,
    character_summary,
    false_beliefs,
    group_key,
    search_beliefs,
)
from pipelines.beliefs.knowledge_split import (
    MATCH_RULES,
    by_meaning,
    by_words,
    gap_over_time,
    knowledge_split,
    left_alone,
    split_summary,
)
from ui.belief_source import belief_source_note
from ui.common import chart, query
from ui.downloads import download_buttons
from ui.filters import (
    url_film,
    url_multiselect,
    url_radio,
    url_range,
    url_selectbox,
    url_text,
)
from ui.safe_text import inert, plain, shown_table
from ui.type_legend import type_legend
from viz.belief_groups import belief_groups_figure
from viz.belief_split import knowledge_gap_figure
from viz.beliefs import belief_lanes_figure, describe_belief

MAX_ROWS = 60
MAX_GROUPS = 40
ALL_GROUPS = "(all groups)"
st.title("Belief timelines")
st.caption(
    "Each box runs from when a belief forms to when it is revised. Dashed red: false belief; "
    "grey: a claim the character rejects; arrows: revisions; ● witnessed ■ told ▲ inferred; "
    "★ meta-beliefs (what X thinks Y believes)."
)

# the offline backend the empty state names (no LLM, runs on any ingested film; the one the
# demo uses for real films)
OFFLINE_BACKEND = "asymmetry"


def _has_beliefs(film: str) -> bool:
    return not query(beliefs_view.belief_holders, film).empty


film_id = url_film(
    "Film or story",
    "beliefs",
    "No films in this store. Build the demo store with `storyscope demo`.",
    has_data=_has_beliefs,
)

holders = query(beliefs_view.belief_holders, film_id)
if holders.empty:
    st.info(
        "No belief records for this film yet. Build them offline (no LLM) with\n\n"
        # a code span shows its text as is; only a backtick could end it early
        f"`storyscope beliefs annotate --film {plain(film_id).replace('`', '')}"
        f" --backend {OFFLINE_BACKEND}`"
        "\n\n(`--backend rules` for the simpler rule tracker, `--backend openai` for an LLM "
        "with LF-VideoQA App. D's prompts through the configured endpoint). Then reload this page."
    )
    st.stop()
belief_source_note(film_id)
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

lanes = query(beliefs_view.belief_lanes, film_id, tuple(chosen))
meta = query(beliefs_view.meta_belief_lane, film_id, tuple(chosen))
found = url_text("Search beliefs (content, teller, trigger)", key="find")
if found:
    lanes = search_beliefs(lanes, found)
    meta = meta[meta["claim"].fillna("").str.contains(found, case=False, regex=False)]
    st.caption(f"{len(lanes)} beliefs and {len(meta)} meta-beliefs match “{plain(found)}”.")

st.subheader("Per character")
st.dataframe(shown_table(character_summary(lanes)), hide_index=True, width="stretch", key="summary")
wrong = false_beliefs(lanes)
with st.expander(f"False beliefs ({len(wrong)}): who told them, when they were corrected"):
    st.dataframe(shown_table(wrong), hide_index=True, width="stretch", key="false_beliefs")


@st.cache_data(show_spinner="Embedding the two characters' beliefs (MiniLM)…", max_entries=32)
def _embedded(texts: tuple[str, ...]):
    from pipelines.embeddings import embed_texts

    return embed_texts(list(texts))


def _match_rule(film: str) -> str:
    """The rule picked (`?match=`); by default `meaning` where records are known to be in each
    holder's own words (gold, an LLM), `words` elsewhere (the offline backends write one text
    per event, and a backend we know nothing of is not assumed to paraphrase)."""
    sources = set(query(belief_sources, film)["backend"])
    own_words = bool(sources & set(OWN_WORDS))
    return url_radio(
        "Same belief when two records have",
        list(MATCH_RULES),
        key="match",
        default="meaning" if own_words else "words",
        format_func=MATCH_RULES.get,
    )


def _knowledge_split(first: str, second: str) -> None:
    """What each of two characters holds that the other does not, and who was away."""
    both = query(beliefs_view.belief_lanes, film_id, (first, second))
    presence = query(film_view.presence_grid, film_id)
    st.subheader(f"Knowledge split: {inert(first)} and {inert(second)}")
    rule = _match_rule(film_id)
    match = by_words if rule == "words" else by_meaning(lambda texts: _embedded(tuple(texts)))
    split = knowledge_split(both, presence, first, second, match)
    left = left_alone(both, first, second, match)
    st.caption(
        f"Matched by {MATCH_RULES[rule]}. Same words is exact for the offline backends, which"
        " write one text for every witness and listener; records in each holder's own words"
        " (the gold, an LLM) share almost no words, so there it overstates the gap. Meaning,"
        " measured on the gold film's 24 hand-labelled same-belief pairs: finds 19 (recall 0.79)"
        " with 20 wrong matches (precision 0.49), a belief and its negation among them, so it"
        " understates the gap. A line rises when one learns something the other does not hold,"
        " and falls when the other learns it or a belief is revised; dotted: formed while the"
        " other was not on screen."
    )
    st.dataframe(
        split_summary(split, first, second, left),
        hide_index=True,
        key="split_summary",
        column_config={
            "beliefs": st.column_config.NumberColumn(
                "formed alone", help="beliefs the other did not hold when they formed"
            ),
            "kept after the other revised it": st.column_config.NumberColumn(
                help="shared when formed; the other revised theirs, this one did not"
            ),
        },
    )
    if split.empty and left.empty:
        st.caption("Neither holds a belief the other does not.")
        return
    scenes = query(film_view.scene_timeline, film_id)
    gap = gap_over_time(both, presence, first, second, scenes, match)
    chart(knowledge_gap_figure, gap, key="knowledge_gap")
    with st.expander(f"The {len(split)} beliefs one held and the other did not, when formed"):
        st.dataframe(shown_table(split), hide_index=True, width="stretch", key="split_rows")
    if not left.empty:
        with st.expander(f"The {len(left)} beliefs kept after the other revised theirs"):
            st.dataframe(shown_table(left), hide_index=True, width="stretch", key="left_rows")


if len(chosen) >= 2:
    _knowledge_split(chosen[0], chosen[1])

st.subheader("Groups")
by = url_selectbox(
    "Group beliefs by", list(GROUPINGS), key="by", format_func=GROUPINGS.get, default="source"
)
keys = group_key(lanes, by, list(holders["holder"])) if not lanes.empty else lanes["holder"]
groups = belief_groups(lanes, by, list(holders["holder"]))
changing = lanes.assign(group=keys)[changes(lanes)] if not lanes.empty else lanes
st.caption(
    "One lane per character and group: its unchanged beliefs collapsed into one span with their "
    "count; false (✕), revised (◆) and rejected (■) beliefs drawn on top."
)
chart(belief_groups_figure, groups.head(MAX_GROUPS), changing, key="belief_groups")
if len(groups) > MAX_GROUPS:
    st.caption(f"The {MAX_GROUPS} largest of {len(groups)} groups are drawn; open one below.")
group_ids = [ALL_GROUPS] + [f"{h} · {g}" for h, g in zip(groups["holder"], groups["group"])]
group_sizes = dict(zip(group_ids[1:], groups["beliefs"]))
opened = url_selectbox(
    "Open a group as one lane per belief",
    group_ids,
    key="group",
    format_func=lambda g: g if g == ALL_GROUPS else f"{plain(g)} ({group_sizes[g]})",
)
if opened != ALL_GROUPS:
    lanes = lanes[(lanes["holder"] + " · " + keys) == opened]
    meta = meta[meta["holder"] == opened.split(" · ", 1)[0]]

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
        st.caption(
            f"{len(lanes)} beliefs in this window; {MAX_ROWS} are drawn: the false, revised,"
            " revising and rejected ones first (the arcs), then the rest in film order."
        )
        lanes = arcs_first(lanes).head(MAX_ROWS)


def _revision_lines(row) -> list[str]:
    """The text of the belief this one revises and of the one that revises it (the detail named
    them by id only)."""
    held = query(beliefs_view.belief_lanes, film_id, (row["holder"],))
    lines = []
    if isinstance(row.get("revises"), str):
        old = held[
            (held["belief_id"] == row["revises"]) & (held["scene_index"] <= row["scene_index"])
        ]
        if not old.empty:
            old = old.iloc[-1]
            lines.append(
                f"Revises {inert(old['belief_id'])} (S{int(old['scene_index'])}):"
                f" {inert(old['content'])}"
            )
    revised = row.get("revised_at_scene")
    if revised is not None and not pd.isna(revised):
        new = held[(held["revises"] == row["belief_id"]) & (held["scene_index"] == int(revised))]
        for _, by in new.iterrows():
            lines.append(
                f"Revised in S{int(revised)} by {inert(by['belief_id'])}: {inert(by['content'])}"
            )
    return lines


NO_BELIEF = "(none: pick one to read its basis and the questions citing it)"


def _describe(label: str) -> str:
    if label == NO_BELIEF:
        return label
    row = lanes.iloc[labels.index(label)]
    return f"{label} — {plain(row['content'])}"


# "holder · id"; beliefs merged from runs over different scenes can repeat an id: add the scene
named = list(zip(lanes["holder"], lanes["belief_id"]))
labels = [
    f"{h} · {b}" + (f" · scene {s}" if named.count((h, b)) > 1 else "")
    for (h, b), s in zip(named, lanes["scene_index"])
]
# nothing opened by default: a belief's basis and citing questions are two more queries and
# tables on every first render of the page, for a detail the reader asks for by picking
picked = (
    url_selectbox("Belief", [NO_BELIEF, *labels], key="belief", format_func=_describe)
    if labels
    else None
)
picked = None if picked == NO_BELIEF else picked

chart(belief_lanes_figure, lanes, meta, picked, key="belief_lanes")
download_buttons(lanes, "belief_lanes", key="lanes")

summary = st.columns(4)
summary[0].metric("Beliefs", len(lanes))
summary[1].metric("False", int(lanes["is_false"].sum()))
summary[2].metric("Revisions", int(lanes["revises"].notna().sum()))
summary[3].metric("Meta-beliefs", len(meta))

if picked:
    row = lanes.iloc[labels.index(picked)]
    holder, belief_id, scene_index = row["holder"], row["belief_id"], int(row["scene_index"])
    st.subheader(f"{inert(holder)}: {inert(belief_id)}")
    st.markdown(describe_belief(row, escape=inert))
    for line in _revision_lines(row):
        st.markdown(line)
    left, right = st.columns(2)
    with left:
        st.markdown("**Basis events**")
        st.dataframe(
            shown_table(query(beliefs_view.belief_basis, film_id, holder, belief_id, scene_index)),
            hide_index=True,
            width="stretch",
        )
    with right:
        st.markdown("**Questions citing these scenes**")
        citing = query(
            beliefs_view.questions_citing_belief, film_id, holder, belief_id, scene_index
        )
        # the question's words first, and a link to it on the Questions page, not a bare id
        citing = citing.assign(
            open=[
                f"questions?film={quote(film_id)}&q={quote(str(q))}" for q in citing["question_id"]
            ]
        )[["text", "qtype", "center", "status", "open", "question_id"]]
        type_legend(citing["qtype"].unique())
        st.dataframe(
            citing,
            hide_index=True,
            width="stretch",
            column_config={
                "text": st.column_config.TextColumn("question", width="large"),
                "open": st.column_config.LinkColumn("open", display_text="open question"),
                "question_id": None,  # in the link (and a download), not a column to read
            },
        )

if not meta.empty:
    st.subheader("Meta-beliefs")
    st.caption(
        "type: what the meta-belief is about (Table 21); change: how it formed or changed;"
        " order_depth: 2 = X thinks Y believes, 3 = X thinks Y thinks Z believes."
    )
    st.dataframe(
        shown_table(
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
            ]
        ),
        hide_index=True,
        width="stretch",
    )
