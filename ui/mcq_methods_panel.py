"""Distributions, multiple choice: the methods whose predictions the store holds (imported and
StoryScope's own, with provenance), their accuracy by topic beside the paper's Tables 8-9, and
one method's choices question by question (with the PlotTree retrieval behind a choice)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.queries import distributions_view, mcq_methods
from pipelines.mcq.methods import given_for_video, provenance_summary
from pipelines.mcq.paper_tables import paper_accuracy_by_topic
from pipelines.mcq.topics import topic_label
from ui.common import chart, query
from ui.filters import url_selectbox
from ui.safe_text import inert
from viz.mcq_methods import beside_paper_table, options_table, topic_accuracy_heatmap

PAPER_TABLES = {
    "Table 9 (StoryVideoQA-G)": "StoryVideoQA Table 9",
    "Table 8 (full set)": "StoryVideoQA Table 8",
}


def methods_section(set_name: str | None, source: str | None) -> None:
    """The three parts below the topic and difficulty figures."""
    methods = query(mcq_methods.prediction_methods)
    if methods.empty:
        st.caption(
            "No method has answered yet: import predictions (`storyscope mcq import-predictions`)"
            " or answer (`storyscope mcq answer --method plottree|subtitles`)."
        )
        return
    _methods_table(methods)
    _beside_paper(methods, set_name, source)
    _per_question(methods, set_name, source)


def _methods_table(methods: pd.DataFrame) -> None:
    st.markdown("**Methods** (each method's latest finished run)")
    shown = methods.assign(
        given=[provenance_summary(p) for p in methods["params"]],
        accuracy=methods["accuracy"].round(1),
    )[["method", "origin", "backend", "model", "prompt_version", "given", "n", "accuracy"]]
    shown = shown.astype({"model": object, "prompt_version": object}).fillna("—")  # no "None"
    st.dataframe(shown, hide_index=True, width="stretch", key="mcq_methods")


def _beside_paper(methods: pd.DataFrame, set_name: str | None, source: str | None) -> None:
    label = url_selectbox("Beside the paper's", list(PAPER_TABLES), key="paper_table")
    ours = query(distributions_view.accuracy_by_topic, set_name, source)
    table = beside_paper_table(ours, methods, paper_accuracy_by_topic(PAPER_TABLES[label]))
    st.markdown(
        "**Accuracy by topic beside the paper** (%; the paper's rows are reported, not"
        " computed here; Table 9 is on StoryVideoQA-G, the golden set this store imports)"
    )
    st.dataframe(table, hide_index=True, width="stretch", key="beside_paper")
    chart(topic_accuracy_heatmap, table, key="beside_paper_heatmap")


def _per_question(methods: pd.DataFrame, set_name: str | None, source: str | None) -> None:
    st.markdown("**Question by question**")
    left, right = st.columns([3, 1])
    method = url_selectbox("Method", list(methods["method"]), key="mcq_method", container=left)
    wrong_only = right.checkbox("Wrong only", key="mcq_wrong_only")
    rows = query(mcq_methods.question_predictions, method, set_name, source, wrong_only)
    if rows.empty:
        st.caption("No question of this slice was answered by this method.")
        return
    table = rows.assign(
        topic=[topic_label(t, e) for t, e in zip(rows["question_type"], rows["story_element"])],
        chosen=rows["predicted_option"].fillna("(none)"),
    )[["mcq_id", "question", "chosen", "option", "correct", "topic", "bin"]]
    table = table.rename(columns={"option": "correct option"})
    table["bin"] = table["bin"].astype(object).where(table["bin"].notna(), "—")
    st.dataframe(table, hide_index=True, width="stretch", key="mcq_questions")
    if len(rows) == 500:
        st.caption("The first 500 questions of the slice.")
    picked = st.selectbox("Question", list(rows["mcq_id"]), key="mcq_question")
    row = rows.set_index("mcq_id").loc[picked]
    params = methods.set_index("method").loc[method, "params"]
    _question_detail(row, picked, given_for_video(params, str(row["vid"])))


def _question_detail(row: pd.Series, mcq_id: str, given: str) -> None:
    st.text(str(row["question"]))  # dataset text: shown as text
    if given:
        st.caption(inert(f"Given to the model: {given}."))
    chosen = row["predicted_option"] if pd.notna(row["predicted_option"]) else None
    st.dataframe(
        options_table(list(row["choices"]), row["option"], chosen),
        hide_index=True,
        width="stretch",
        key="mcq_options",
    )
    cols = st.columns(4)
    cols[0].metric("Chosen", chosen or "(none)")
    cols[1].metric("Correct", row["option"])
    cols[2].metric("Difficulty D", "—" if pd.isna(row["d"]) else f"{row['d']:.3f}")
    cols[3].metric("Difficulty bin", "—" if pd.isna(row["bin"]) else str(int(row["bin"])))
    if not row["retrieved"]:
        return
    nodes = query(mcq_methods.prediction_retrieval, row["run_id"], mcq_id)
    st.markdown(f"**PlotTree retrieval** ({len(nodes)} nodes, in the order given)")
    st.dataframe(
        nodes.assign(score=nodes["score"].round(3)),
        hide_index=True,
        width="stretch",
        key="mcq_retrieval",
    )
