"""Verdicts → Agreement: how far the judge can be trusted, on StorySumm against humans."""

from __future__ import annotations

import streamlit as st

from data_access.tables.judge_evals import latest_judge_evals
from pipelines.agreement.storysumm_eval import comparison_frame
from ui.common import chart, query
from viz.judge_eval import judge_vs_anchors_figure


def storysumm_panel() -> None:
    """Our judges' StorySumm figures beside the released detectors (from `judge-eval`)."""
    st.subheader("Judge vs human labels (StorySumm)")
    evals = query(latest_judge_evals, "storysumm")
    if evals.empty:
        st.caption(
            "No judge scored against StorySumm yet: run "
            "`storyscope judge-eval storysumm DIR --backend lexical|minilm-support|openai`."
        )
        return
    frame = comparison_frame(evals)
    st.caption(
        "Summary-level balanced accuracy against the human labels (a summary is unfaithful "
        "when any sentence is); κ and accuracy are sentence-level. Released detectors are "
        "scored from their own summary labels in predicted_labels/."
    )
    chart(judge_vs_anchors_figure, frame, key="storysumm_figure")
    st.dataframe(frame.round(3), hide_index=True, width="stretch", key="storysumm_table")
