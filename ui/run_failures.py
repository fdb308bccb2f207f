"""The Runs page's failure panel: failed LLM calls counted by reason per run."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.queries import runs_view
from ui.common import query


def failures_by_run(run_ids: list[str]) -> None:
    """Counts by reason for each listed run, and the first error of each reason in full."""
    counts = query(runs_view.llm_failure_counts, tuple(run_ids))
    st.subheader("Failures by reason")
    if counts.empty:
        st.caption("No LLM call failed in the runs shown.")
        return
    st.dataframe(counts, hide_index=True, width="stretch", key="failure_reasons_table")


def run_failure_summary(run_id: str) -> None:
    """One run's failure counts and its first failure in full (as plain text)."""
    counts: pd.DataFrame = query(runs_view.llm_failure_counts, (run_id,))
    if counts.empty:
        return
    st.text(
        "failures by reason: " + ", ".join(f"{r.reason} {r.failed}" for r in counts.itertuples())
    )
    first = counts.sort_values("first_at").iloc[0]
    st.text(f"first failure ({first['reason']}): {first['first_error']}")
