"""Overview: what the store holds — datasets, films, questions, settings, judges, runs, MCQ sets."""

import streamlit as st

from data_access.formats.question_types import type_label
from data_access.queries import overview_view
from ui.common import chart, query
from ui.safe_text import inert, plain, shown_table
from ui.type_legend import type_legend
from viz.overview import mcq_sets_figure, questions_by_type_figure

st.title("StoryScope")
st.caption(
    "Long-form movie/TV question answering: LF-VideoQA and StoryVideoQA, built, graded, explored."
)

counts = query(overview_view.overview_counts)
columns = st.columns(6)
for column, (label, key) in zip(
    columns,
    [
        ("Films & episodes", "films"),
        ("Questions", "questions"),
        ("Settings", "settings"),
        ("Judges", "judges"),
        ("MCQ questions", "mcq_questions"),
        ("Runs", "runs"),
    ],
):
    column.metric(label, f"{counts[key]:,}")
if counts.get("stories"):
    columns[0].caption(f"and {counts['stories']:,} text stories (ToM datasets)")

st.subheader("Datasets")
datasets = query(overview_view.datasets_overview)
if datasets.empty:
    st.info("The store is empty. Build the demo store with `storyscope demo` or import a dataset.")
else:
    st.dataframe(
        # a dataset whose source states no licence says so in words, not "None"
        datasets.fillna({"licence": "not stated"}),
        hide_index=True,
        width="stretch",
        column_config={"reported_by_paper": st.column_config.CheckboxColumn("reported by paper")},
    )

left, right = st.columns(2)
with left:
    st.subheader("Questions by type")
    by_type = query(overview_view.questions_by_type_status)
    if by_type.empty:
        st.caption("No open-ended questions in this store.")
    else:
        chart(questions_by_type_figure, by_type, key="questions_by_type")
with right:
    st.subheader("MCQ sets")
    sets = query(overview_view.mcq_sets)
    if sets.empty:
        st.caption("No multiple-choice questions in this store.")
    else:
        chart(mcq_sets_figure, sets, key="mcq_sets")

left, right = st.columns(2)
with left:
    st.subheader("Settings")
    settings_rows = shown_table(query(overview_view.settings_table))
    st.dataframe(settings_rows, hide_index=True, width="stretch")
with right:
    st.subheader("Judges")
    st.dataframe(shown_table(query(overview_view.judges_table)), hide_index=True, width="stretch")

st.subheader("Recent runs")
# an offline backend has no model, a setting no captioner or tier: a dash, never "None"
st.dataframe(shown_table(query(overview_view.recent_runs)), hide_index=True, width="stretch")

# -- links into the explorer with the right filters (engineer H) ------------------------------
from data_access.queries import film_view  # noqa: E402

st.subheader("Explore")
# one film at a time: a row of links per film was ~150 elements for the browser to draw on
# every visit, and listed only a dozen films; the picker lists them all, busiest first
explore = query(film_view.films_to_explore, None).set_index("film_id", drop=False)
if not explore.empty:
    picked = st.selectbox(
        "Film or episode",
        list(explore.index),
        key="explore_film",
        format_func=lambda film_id: (
            f"{plain(explore.at[film_id, 'title'])} · {explore.at[film_id, 'kind']} · "
            f"{explore.at[film_id, 'questions']:,} questions · "
            f"{explore.at[film_id, 'beliefs']:,} beliefs"
        ),
    )
    film = explore.loc[picked]
    cols = st.columns([3, 1, 1, 1, 1, 1])
    cols[0].markdown(f"**{inert(film['title'])}** · {film['kind']}")
    cols[1].page_link("ui/film_page.py", label="Film", query_params={"film": film["film_id"]})
    cols[2].page_link(
        "ui/beliefs_page.py",
        label="Beliefs",
        query_params={"film": film["film_id"]},
        disabled=not film["beliefs"],
    )
    cols[3].page_link(
        "ui/questions_page.py",
        label="Questions",
        query_params={"film": film["film_id"]},
        disabled=not film["questions"],
    )
    cols[4].page_link(
        "ui/verdicts_page.py",
        label="Verdicts",
        query_params={"film": film["film_id"]},
        disabled=not film["questions"],
    )
    cols[5].page_link(
        "ui/plottree_page.py",
        label="PlotTree",
        query_params={"film": film["film_id"]},
        disabled=not film["has_tree"],
    )
if not by_type.empty:
    st.caption("Questions of one type (Table 1):")  # bare type names: 11 columns cut longer labels
    type_links = st.columns(min(11, len(by_type["qtype"].unique())))
    for column, qtype in zip(type_links, sorted(by_type["qtype"].unique())):
        column.page_link(
            "ui/questions_page.py",
            label=qtype,
            query_params={"qtype": qtype},
            help=type_label(qtype),
        )
    type_legend(by_type["qtype"].unique())
links = st.columns(4)
links[0].page_link("ui/distributions_page.py", label="Distributions")
links[1].page_link("ui/qlab_page.py", label="Question Lab")
links[2].page_link("ui/runs_page.py", label="Runs")
links[3].page_link("ui/runs_page.py", label="Failed runs", query_params={"status": "failed"})
