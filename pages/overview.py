"""Overview: what the store holds — datasets, films, questions, settings, judges, runs, MCQ sets."""

import streamlit as st

from data_access import stats
from pages.common import query
from viz.overview import mcq_sets_figure, questions_by_type_figure

st.title("StoryScope")
st.caption("Long-form movie/TV question answering: LF-VideoQA and StoryVideoQA, built, graded, explored.")

counts = query(stats.overview_counts)
columns = st.columns(6)
for column, (label, key) in zip(columns, [("Films & episodes", "films"), ("Questions", "questions"),
                                          ("Settings", "settings"), ("Judges", "judges"),
                                          ("MCQ questions", "mcq_questions"), ("Runs", "runs")]):
    column.metric(label, f"{counts[key]:,}")

st.subheader("Datasets")
datasets = query(stats.datasets_overview)
if datasets.empty:
    st.info("The store is empty. Build the demo store with `storyscope demo` or import a dataset.")
else:
    st.dataframe(datasets, hide_index=True, width="stretch",
                 column_config={"reported_by_paper": st.column_config.CheckboxColumn("reported by paper")})

left, right = st.columns(2)
with left:
    st.subheader("Questions by type")
    by_type = query(stats.questions_by_type_status)
    if by_type.empty:
        st.caption("No open-ended questions in this store.")
    else:
        st.plotly_chart(questions_by_type_figure(by_type), key="questions_by_type")
with right:
    st.subheader("MCQ sets")
    sets = query(stats.mcq_sets)
    if sets.empty:
        st.caption("No multiple-choice questions in this store.")
    else:
        st.plotly_chart(mcq_sets_figure(sets), key="mcq_sets")

left, right = st.columns(2)
with left:
    st.subheader("Settings")
    st.dataframe(query(stats.settings_table), hide_index=True, width="stretch")
with right:
    st.subheader("Judges")
    st.dataframe(query(stats.judges_table), hide_index=True, width="stretch")

st.subheader("Recent runs")
st.dataframe(query(stats.recent_runs), hide_index=True, width="stretch")
